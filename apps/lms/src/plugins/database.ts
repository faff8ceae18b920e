import type { Db, DbHandle } from '@lms/db';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    /** The Drizzle database (PostgreSQL or embedded PGlite). */
    db: Db;
    dbHandle: DbHandle;
  }
}

/**
 * Exposes the database handle. The handle is created by whoever builds the app (server.ts or a
 * test), and closed with the app only when `ownsHandle` is set.
 *
 * An outage is logged once when it starts (warn) and once when it ends (info), from what the
 * handle's connections see; the requests that fail in between log at debug only (error-handler).
 */
export default fp<{ handle: DbHandle; ownsHandle: boolean }>(
  async (app, { handle, ownsHandle }) => {
    app.decorate('db', handle.db);
    app.decorate('dbHandle', handle);
    const log = app.log.child({ component: 'database' });
    const unsubscribe = handle.onAvailabilityChange(({ available, cause }) => {
      if (available) log.info('database available again');
      else
        log.warn(
          { err: cause },
          'database unavailable (unreachable, stalled or out of time): requests that need it get 503 until it answers',
        );
    });
    app.addHook('onClose', async () => {
      unsubscribe();
      if (ownsHandle) await handle.close();
    });
  },
  { name: 'database' },
);
