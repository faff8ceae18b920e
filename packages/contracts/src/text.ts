import { z } from 'zod';

// Building blocks for what a client sends: every string field of a body or query parameter,
// every integer that reaches an int4 column, every date-time that reaches a timestamp column.
// Each refuses, with a 400 naming the field, a value the database would refuse with an error
// (a 5xx) or silently change: PostgreSQL's text cannot hold U+0000, int4 stops at 2^31 - 1,
// PostgreSQL has no year 0, a JS Date past 9999 writes a six-digit year no timestamp accepts, and
// a year below 100 read back from the database comes out as 19xx or 20xx (JS's two-digit years).

/** Largest serial id (int4); a larger numeric id cannot exist. */
export const MAX_ID = 2_147_483_647;

// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing NUL is the point.
const NO_NUL = /^[^\u0000]*$/;
export const NUL_MESSAGE = 'must not contain the NUL character (\\u0000)';
/** Every surrogate in a pair: a lone one (JSON allows `"\\ud800"`) has no UTF-8 form to store. */
const WELL_FORMED = /^(?:[^\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/;
export const SURROGATE_MESSAGE = 'must be valid Unicode text (an unpaired surrogate, \\ud800-\\udfff, cannot be stored)';

/**
 * Any text a client sends: a string PostgreSQL can store as it is, so without NUL characters and
 * without unpaired UTF-16 surrogates (both were 500s on insert).
 */
export function text() {
  return z.string().regex(NO_NUL, NUL_MESSAGE).regex(WELL_FORMED, SURROGATE_MESSAGE);
}

/** A whole number that fits an int4 id column: 1 to 2^31 - 1. */
export function idNumber() {
  return z.number().int().min(1).max(MAX_ID);
}

/** The range of date-times accepted from clients: years 1000 to 9999 (UTC), four-digit years only. */
export const EARLIEST_DATE_TIME = '1000-01-01T00:00:00Z';
export const LATEST_DATE_TIME = '9999-12-31T23:59:59.999Z';
const EARLIEST_MS = Date.parse(EARLIEST_DATE_TIME);
const LATEST_MS = Date.parse(LATEST_DATE_TIME);
export const DATE_RANGE_MESSAGE = 'must lie between the years 1000 and 9999 (UTC)';

/**
 * An ISO 8601 date-time with an offset, between years 1000 and 9999 once in UTC. Year 0000 is not
 * a year PostgreSQL knows (500 on insert); a year 0001-0099 is stored but read back as 19xx/20xx
 * (the database's text goes through JS's two-digit-year rule); a JS Date past 9999 writes a
 * six-digit year no timestamp accepts. Four-digit years are safe everywhere.
 */
export function boundedDateTime(message = 'must be an ISO 8601 date-time, e.g. 2026-01-31T09:00:00Z') {
  return z.iso
    .datetime({ offset: true, message })
    .refine(
      (v) => {
        const ms = Date.parse(v);
        return ms >= EARLIEST_MS && ms <= LATEST_MS;
      },
      { message: DATE_RANGE_MESSAGE },
    )
    .describe(`An ISO 8601 date-time with offset, from ${EARLIEST_DATE_TIME} to ${LATEST_DATE_TIME}.`);
}

/** How deep a JSON body may nest (objects and arrays); deeper is a 400 naming the top-level field. */
export const MAX_JSON_DEPTH = 32;

/**
 * Where a parsed JSON value nests deeper than `maxDepth` levels: the top-level field (or array
 * index) holding the too-deep part, `''` when the top level itself is the problem, or null when
 * the value is within the limit. Iterative: a 10,000-deep value must not overflow the stack here,
 * as it does in JSON.stringify and in any recursive walk.
 */
export function tooDeepJsonField(value: unknown, maxDepth = MAX_JSON_DEPTH): string | null {
  if (value === null || typeof value !== 'object') return null;
  if (maxDepth < 1) return '';
  const stack: Array<{ node: unknown; depth: number; field: string }> = [];
  for (const [field, child] of Object.entries(value)) stack.push({ node: child, depth: 2, field });
  while (stack.length > 0) {
    // biome-ignore lint/style/noNonNullAssertion: the loop condition says the stack is not empty.
    const { node, depth, field } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > maxDepth) return field;
    for (const child of Object.values(node)) stack.push({ node: child, depth: depth + 1, field });
  }
  return null;
}

/** The 400 text for a body nested deeper than the limit, naming the top-level field. */
export function tooDeepJsonMessage(field: string, maxDepth = MAX_JSON_DEPTH): string {
  return `Invalid request body: ${field ? `${field}: ` : ''}JSON nested deeper than ${maxDepth} levels`;
}
