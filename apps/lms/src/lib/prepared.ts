import type { Db } from '@lms/db';

/**
 * A prepared statement, built once per database handle and reused by every request: the text
 * never changes (its values are placeholders), so Drizzle builds the query once and node-postgres
 * prepares it once per connection (no query building, parsing or planning per request). `build`
 * must give the statement a name of its own (`.prepare('name')`); names are per connection.
 */
export function preparedOnce<S>(build: (db: Db) => S): (db: Db) => S {
  const forDb = preparedPer<null, S>(
    () => '',
    (db) => build(db),
  );
  return (db) => forDb(db, null);
}

/**
 * A family of prepared statements whose text depends on a few choices (`K`: a shape of query, a
 * variant), each built once per database handle and choice, as preparedOnce builds one. `nameOf`
 * names the statement of a choice and is also its key, so two choices that build different text
 * must have different names; the name goes to `.prepare(name)` (node-postgres refuses one name
 * with two texts on a connection). Only the choices may vary the text: a value that varies per
 * request must be a placeholder, or every request would add a statement.
 */
export function preparedPer<K, S>(nameOf: (choice: K) => string, build: (db: Db, choice: K, name: string) => S): (db: Db, choice: K) => S {
  const built = new WeakMap<Db, Map<string, S>>();
  return (db, choice) => {
    let byName = built.get(db);
    if (byName === undefined) {
      byName = new Map();
      built.set(db, byName);
    }
    const name = nameOf(choice);
    let statement = byName.get(name);
    if (statement === undefined) {
      statement = build(db, choice, name);
      byName.set(name, statement);
    }
    return statement;
  };
}
