import { type SQLWrapper, sql } from 'drizzle-orm';

// What the catalog's readers (list summaries, course detail) share: the public face of a
// question's options, and two small shapes of result rows.

/**
 * A question's options without answer keys, built in SQL so the keys never leave the database:
 * only `id` and `text` of each option, in stored order. `options` is the jsonb column to read.
 */
export function publicOptionsOf(options: SQLWrapper) {
  // json, not jsonb: the result is only sent, and building json text is cheaper than jsonb.
  return sql<{ id: string; text: string }[]>`coalesce((
  select json_agg(json_build_object('id', coalesce(e.o->>'id', ''), 'text', coalesce(e.o->>'text', '')) order by e.n)
  from jsonb_array_elements(${options}) with ordinality as e(o, n)
), '[]'::json)`;
}

/** A course's Category object, or null when it has none (a left join gives nulls). */
export function categoryOf(id: number | null, code: string | null, name: string | null) {
  return id !== null && code !== null && name !== null ? { id, code, name } : null;
}

export function groupBy<T>(items: T[], key: (item: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}
