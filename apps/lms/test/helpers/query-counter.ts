import type { Db } from '@lms/db';

/**
 * Counts the SQL statements the app sends, by wrapping the `query` method of the driver client
 * behind Drizzle (`db.$client`: a node-postgres Pool or a PGlite instance; Drizzle sends every
 * statement through it on both). `restore()` puts the original back.
 */
export function countQueries(db: Db) {
  const client = (db as unknown as { $client: { query: (...args: unknown[]) => Promise<unknown> } }).$client;
  const original = client.query;
  const statements: string[] = [];
  client.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0];
    statements.push(typeof first === 'string' ? first : String((first as { text?: string })?.text ?? first));
    return original.apply(this, args);
  };
  return {
    statements,
    reset() {
      statements.length = 0;
    },
    restore() {
      client.query = original;
    },
  };
}
