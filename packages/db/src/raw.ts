import type { Column, SQL, Table } from 'drizzle-orm';
import type { Db } from './client.js';

// Types of rows read by raw SQL (`db.execute(sql…)`), derived from the schema instead of written
// by hand. A raw row differs from `$inferSelect` in what the drivers hand over without Drizzle's
// mapping: timestamps and dates are text (Drizzle turns the drivers' date parsers off on both
// backends), numeric is text whatever the column's `mode`, bigint is a number on PGlite and text
// on node-postgres. Column names are the database's (snake_case) in RawRow, the schema's keys
// (camelCase, as the statements alias them: `course_id as "courseId"`) in RawSelect.

type RawValue<C extends Column> = C['_']['columnType'] extends 'PgTimestamp' | 'PgTimestampString' | 'PgDate' | 'PgDateString'
  ? string
  : C['_']['columnType'] extends 'PgNumeric' | 'PgNumericNumber' | 'PgNumericBigInt'
    ? string
    : C['_']['columnType'] extends 'PgBigInt53' | 'PgBigInt64' | 'PgBigSerial53' | 'PgBigSerial64'
      ? number | string
      : C['_']['data'];

type RawColumn<C extends Column> = C['_']['notNull'] extends true ? RawValue<C> : RawValue<C> | null;

/** `courseCode` → `course_code`, as `casing: 'snake_case'` names the columns. */
export type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S;

/** A row of `T` read with `select t.*` through `db.execute`: snake_case names, raw values. */
export type RawRow<T extends Table> = {
  [K in keyof T['_']['columns'] & string as SnakeCase<K>]: RawColumn<T['_']['columns'][K]>;
};

/** A row of `T` read through `db.execute` with each column aliased to its schema key: raw values. */
export type RawSelect<T extends Table> = {
  [K in keyof T['_']['columns'] & string]: RawColumn<T['_']['columns'][K]>;
};

/**
 * The rows of one raw statement, typed as its caller declares them (derive the type from
 * RawSelect / RawRow where the columns are a table's). The one place raw rows get their type:
 * call it from a function that owns the statement and says, in a line, why it stays raw.
 */
export async function typedRows<Row>(db: Db, query: SQL): Promise<Row[]> {
  const { rows } = await db.execute(query);
  return rows as Row[];
}
