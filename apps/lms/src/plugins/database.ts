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
 */
export default fp<{ handle: DbHandle; ownsHandle: boolean }>(
  async (app, { handle, ownsHandle }) => {
    app.decorate('db', handle.db);
    app.decorate('dbHandle', handle);
    if (ownsHandle) app.addHook('onClose', () => handle.close());
  },
  { name: 'database' },
);
