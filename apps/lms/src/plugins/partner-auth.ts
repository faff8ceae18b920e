import { type JwksCacheOptions, PartnerKeyRegistry } from '@lms/partner-auth';
import fp from 'fastify-plugin';
import { databasePartnerDirectory } from '../domain/partner-tokens.js';

export interface PartnerAuthOptions {
  /** How long a partner row (and its PEM keys) is answered from memory. Default 30 s. */
  partnerCacheTtlMs?: number;
  /** JWKS cache tuning (max age 1 h, cooldown 30 s, timeout 3 s by default). */
  jwks?: Omit<JwksCacheOptions, 'now' | 'logger'>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Partner keys (PEM rows and JWKS URLs from the database), cached; shared by SSO and course creation. */
    partnerKeys: PartnerKeyRegistry;
  }
}

/** The partner key registry of @lms/partner-auth over this app's database, clock and logger. */
export default fp<PartnerAuthOptions>(
  async (app, opts) => {
    const logger = app.log.child({ component: 'partner-keys' });
    const registry = new PartnerKeyRegistry({
      directory: databasePartnerDirectory(app.db),
      now: app.clock,
      partnerCacheTtlMs: opts.partnerCacheTtlMs,
      jwks: { ...opts.jwks, now: () => app.clock().getTime(), logger },
      logger,
    });
    app.decorate('partnerKeys', registry);
  },
  { name: 'partner-auth', dependencies: ['database'] },
);
