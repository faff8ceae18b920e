import type { Db } from '@lms/db';

/**
 * Runs `meanwhile` just before the first SQL statement matching `pattern` reaches the database,
 * then lets that statement go on: a deterministic interleaving of two database clients (an
 * operator's command, or a second sign-in, landing between two statements of a sign-in). Wraps
 * the `query` method of the driver client behind Drizzle (`db.$client`, as query-counter.ts
 * does); the wrapper is removed before `meanwhile` runs, so its own statements pass untouched.
 * Should `meanwhile` throw, the held statement fails with its error.
 */
export function beforeStatement(db: Db, pattern: RegExp, meanwhile: () => Promise<unknown>) {
  const client = (db as unknown as { $client: { query: (...args: unknown[]) => Promise<unknown> } }).$client;
  const original = client.query;
  let happened = false;
  client.query = async function (this: unknown, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : String((first as { text?: string })?.text ?? first);
    if (!happened && pattern.test(text)) {
      happened = true;
      client.query = original;
      await meanwhile();
    }
    return original.apply(this, args);
  };
  return {
    /** Whether the statement came (and `meanwhile` ran). */
    happened: () => happened,
    restore() {
      client.query = original;
    },
  };
}
