import fp from 'fastify-plugin';
import { SharedAnswers } from '../lib/shared-answers.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The API-key catalog list answers shared by every key for CATALOG_CACHE_MS (routes/catalog);
     * null when CATALOG_CACHE_MS is 0.
     */
    sharedCatalogList: SharedAnswers<Buffer> | null;
    /**
     * A course changed (an authoring write committed). `published`: the course is published, or
     * was until this write; only then can an API-key answer hold it (they show buyer-visible
     * courses: published, with an event code), so only then does this instance recompute each
     * shared page at its next request (SharedAnswers.refresh: requests during that computation get
     * the previous answer). A draft's writes leave the shared answers alone: before, every write
     * of every author made every integrator's next request wait for a recomputation. The other
     * instances show the change within CATALOG_CACHE_MS, as their answers expire.
     */
    catalogChanged: (change: { published: boolean }) => void;
  }
}

/**
 * The catalog's shared answers, held by the app so that a write elsewhere (authoring) can forget
 * them. Every API key sees the same list (buyer-visible courses, no learner): an integrator's
 * storefront asks for the same few pages over and over, so one serialized answer per page is
 * shared by all keys for CATALOG_CACHE_MS. At most 256 answers (a few MB; at worst ~100 MB of
 * 100-course pages) are held, only those made in the last CATALOG_CACHE_MS.
 */
export default fp(
  async (app) => {
    const shared =
      app.config.CATALOG_CACHE_MS > 0
        ? new SharedAnswers<Buffer>({ ttlMs: app.config.CATALOG_CACHE_MS, maxEntries: 256, now: () => app.clock().getTime() })
        : null;
    app.decorate('sharedCatalogList', shared);
    app.decorate('catalogChanged', (change: { published: boolean }) => {
      if (change.published) shared?.refresh();
    });
  },
  { name: 'catalog-cache' },
);
