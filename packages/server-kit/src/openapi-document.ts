import { TEXT_PATTERNS } from '@lms/contracts';

// Both apps' OpenAPI documents are written by @fastify/swagger and fastify-type-provider-zod from
// the routes' zod schemas. This is what they do to the finished document (swagger's
// transformObject, once: the document is cached) so that a generator such as openapi-typescript
// writes clean types from it, and so that it is not several times larger than what it says.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const COMPONENT = '#/components/schemas/';
const TEXT_PATTERN_SOURCES = new Set(TEXT_PATTERNS.map((p) => p.source));

const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every object of the tree, depth first (schemas and everything else: only schema keywords are touched). */
function eachObject(value: Json, visit: (o: JsonObject) => void): void {
  if (Array.isArray(value)) for (const v of value) eachObject(v, visit);
  else if (isObject(value)) {
    visit(value);
    for (const v of Object.values(value)) eachObject(v, visit);
  }
}

/**
 * Patterns a client need not see on every field: a date-time's (zod writes the regex of its
 * `format` beside it: 300 characters, 160 times), and text()'s NUL and unpaired-surrogate patterns
 * (the documents' descriptions state those rules once). A lone-surrogate class in a pattern is
 * what generators cannot read: openapi-typescript made `string & (unknown & unknown)` of it.
 */
function dropPatterns(o: JsonObject): void {
  if (typeof o.pattern === 'string' && (o.format === 'date-time' || TEXT_PATTERN_SOURCES.has(o.pattern))) delete o.pattern;
  if (!Array.isArray(o.allOf)) return;
  const kept = o.allOf.filter((s) => !(isObject(s) && typeof s.pattern === 'string' && TEXT_PATTERN_SOURCES.has(s.pattern)));
  if (kept.length === o.allOf.length) return;
  const [only] = kept;
  if (kept.length === 1 && isObject(only) && Object.keys(only).length === 1 && typeof only.pattern === 'string' && !('pattern' in o)) {
    o.pattern = only.pattern;
    delete o.allOf;
  } else if (kept.length === 0) delete o.allOf;
  else o.allOf = kept;
}

function rewriteRefs(doc: JsonObject, renamed: Map<string, string>): void {
  eachObject(doc, (o) => {
    if (typeof o.$ref === 'string' && o.$ref.startsWith(COMPONENT)) {
      const to = renamed.get(o.$ref.slice(COMPONENT.length));
      if (to !== undefined) o.$ref = COMPONENT + to;
    }
  });
}

/**
 * The plugin writes every registered schema twice, as `X` (what the LMS sends) and `XInput` (what
 * it takes). Where both are the same, `XInput` goes and its references point to `X`.
 */
function mergeSameInputs(doc: JsonObject, schemas: JsonObject): void {
  const renamed = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    const output = name.endsWith('Input') ? schemas[name.slice(0, -'Input'.length)] : undefined;
    if (output !== undefined && JSON.stringify(output) === JSON.stringify(schemas[name])) renamed.set(name, name.slice(0, -'Input'.length));
  }
  for (const name of renamed.keys()) delete schemas[name];
  rewriteRefs(doc, renamed);
}

/** Components nothing refers to (the plugin writes every registered schema, used here or not) go. */
function pruneUnreferenced(doc: JsonObject, schemas: JsonObject): void {
  const used = new Set<string>();
  const visitRefs = (value: Json) =>
    eachObject(value, (o) => {
      if (typeof o.$ref !== 'string' || !o.$ref.startsWith(COMPONENT)) return;
      const name = o.$ref.slice(COMPONENT.length);
      if (used.has(name)) return;
      used.add(name);
      const schema = schemas[name];
      if (schema !== undefined) visitRefs(schema);
    });
  for (const [key, value] of Object.entries(doc)) if (key !== 'components') visitRefs(value);
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}

/**
 * The finished document, tidied in place: patterns a client need not see removed, identical
 * input/output components merged, unreferenced components dropped. What a route validates and
 * answers is untouched (this is the document only).
 */
export function tidyOpenApiDocument<T extends object>(document: T): T {
  const doc = document as unknown as JsonObject;
  eachObject(doc, dropPatterns);
  const components = doc.components;
  const schemas = isObject(components) ? components.schemas : undefined;
  if (isObject(schemas)) {
    mergeSameInputs(doc, schemas);
    pruneUnreferenced(doc, schemas);
  }
  return document;
}
