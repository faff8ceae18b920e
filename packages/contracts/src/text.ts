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

/**
 * The patterns every text() field carries: the OpenAPI documents state them once, in their
 * description, rather than on every field (server-kit's tidyOpenApiDocument).
 */
export const TEXT_PATTERNS: readonly RegExp[] = [NO_NUL, WELL_FORMED];

/**
 * How a schema is described in the OpenAPI documents instead of what zod would write for it: for
 * a query or path parameter whose text is parsed, what a client sends (an integer, a boolean)
 * rather than the text's pattern, so that a generated client takes `limit: 3`. Validation and its
 * error messages are the schema's own, unchanged.
 */
export function documentedAs<T extends z.ZodType>(schema: T, json: Record<string, unknown>): T {
  // zod's own hook for a schema's JSON Schema (toJSONSchema, which the OpenAPI plugin calls).
  schema._zod.toJSONSchema = () => ({ ...json });
  return schema;
}

/**
 * A whole number in a query string: `page=2`, parsed. Stricter than `Number()`, which takes
 * `0x10`, `1e3`, ` 2`. Documented as an integer from `min` to `max`.
 */
export function queryWholeNumber(min: number, max: number) {
  return documentedAs(
    z
      .string()
      .regex(/^[0-9]{1,10}$/, 'must be a whole number')
      .transform(Number)
      .pipe(z.number().int().min(min).max(max)),
    { type: 'integer', minimum: min, maximum: max },
  );
}

/** `true` or `false` in a query string, parsed. Documented as a boolean. */
export function queryBoolean() {
  return documentedAs(
    z.enum(['true', 'false']).transform((v) => v === 'true'),
    { type: 'boolean' },
  );
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

/** The 400 text for a body nested deeper than the limit, naming the top-level field. */
export function tooDeepJsonMessage(field: string, maxDepth = MAX_JSON_DEPTH): string {
  return `Invalid request body: ${field ? `${field}: ` : ''}JSON nested deeper than ${maxDepth} levels`;
}

/**
 * How many keys one object of a JSON body may have. No request schema has a tenth of this many
 * fields; an object of 250,000 unknown keys (2.9 MB) cost seconds in JSON.parse and every walk after it.
 */
export const MAX_JSON_KEYS = 1_000;

/**
 * How many values (objects, arrays, strings, numbers…) one JSON body may hold. A course of 200
 * chapters with 20 four-option questions each is about 90,000; the 2.5 MB attack document of
 * 200 × 100 × 10 options `{"id":"!"}` about 440,000, and every value costs JSON.parse and
 * validation their time whether it is valid or not.
 */
export const MAX_JSON_VALUES = 250_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * What is wrong with the shape of a JSON text, as the 400's text, or null: nested deeper than
 * `maxDepth` (tooDeepJsonMessage), or an object with more than `maxKeys` keys, each named by its
 * top-level field (or index), or more than `maxValues` values in all. Read from the text before
 * it is parsed, in one pass that stops at the first problem: JSON.parse of 4 MB nested two
 * million deep took a second, and of 250,000 keys most of one, so none of these is parsed. Says
 * nothing of other mistakes (JSON.parse's job).
 */
export function jsonTextShapeProblem(
  text: string,
  maxDepth = MAX_JSON_DEPTH,
  maxKeys = MAX_JSON_KEYS,
  maxValues = MAX_JSON_VALUES,
): string | null {
  // Every value is the document itself, the first value of a non-empty container, or one after a comma.
  let values = 1;
  const tooMany = () => `Invalid request body: more than ${maxValues} JSON values`;
  // Per open container: how many keys so far (objects), and whether it is an object.
  const keys: number[] = [];
  const objects: boolean[] = [];
  // The top-level field being read: the last key of a top-level object (its JSON text), or the index in a top-level array.
  let expectKey = false;
  let topKey = '';
  let topIndex = 0;
  const field = () => (objects[0] ? (topKey ? String(JSON.parse(topKey)) : '') : String(topIndex));
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    switch (c) {
      case QUOTE: {
        const start = i;
        // To the closing quote: the next quote not escaped (preceded by an even number of backslashes).
        for (;;) {
          i = text.indexOf('"', i + 1);
          if (i === -1) return null;
          let backslashes = 0;
          while (text.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes += 1;
          if (backslashes % 2 === 0) break;
        }
        if (expectKey && keys.length === 1) {
          topKey = text.slice(start, i + 1);
          expectKey = false;
        }
        break;
      }
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        if (keys.length >= maxDepth) return tooDeepJsonMessage(keys.length === 0 ? '' : field(), maxDepth);
        if (!closesAt(text, i + 1) && ++values > maxValues) return tooMany();
        keys.push(0);
        objects.push(c === OPEN_OBJECT);
        if (keys.length === 1) expectKey = c === OPEN_OBJECT;
        break;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        keys.pop();
        objects.pop();
        break;
      case COLON: {
        const at = keys.length - 1;
        if (at >= 0 && objects[at] && ++keys[at] > maxKeys) {
          return `Invalid request body: ${at > 0 ? `${field()}: ` : ''}an object with more than ${maxKeys} keys`;
        }
        break;
      }
      case COMMA:
        if (++values > maxValues) return tooMany();
        if (keys.length === 1) {
          if (objects[0]) expectKey = true;
          else topIndex += 1;
        }
        break;
    }
  }
  return null;
}

/** Whether the first character after blanks from `from` closes a container (an empty `{}` or `[]`). */
function closesAt(text: string, from: number): boolean {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c === CLOSE_OBJECT || c === CLOSE_ARRAY;
    i += 1;
  }
  return false;
}
