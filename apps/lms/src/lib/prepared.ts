import type { Db } from '@lms/db';

/**
 * A prepared statement, built once per database handle and reused by every request: the text
 * never changes (its values are placeholders), so Drizzle builds the query once and node-postgres
 * prepares it once per connection (no query building, parsing or planning per request). `build`
 * must give the statement a name of its own (`.prepare('name')`); names are per connection.
 */
export function preparedOnce<S>(build: (db: Db) => S): (db: Db) => S {
  const built = new WeakMap<Db, S>();
  return (db) => {
    let statement = built.get(db);
    if (statement === undefined) {
      statement = build(db);
      built.set(db, statement);
    }
    return statement;
  };
}
