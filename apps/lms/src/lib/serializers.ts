import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';
import { createSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

// Responses are written by compiled serializers (fast-json-stringify, Fastify's own) built from
// the JSON Schema of the zod contracts, not by running zod over every answer: zod builds a copy
// of each answer and was most of the CPU a large course detail cost (issue 14). The serializer
// writes only the properties a schema declares, so a public schema still cannot carry an answer
// key, whatever the query returned. Requests are still validated by zod.

type JsonSchema = { [key: string]: unknown };

/**
 * The JSON Schema fast-json-stringify compiles for a response contract: every reused schema
 * inlined (no ids: a registry without metadata), and `anyOf [X, null]` (zod's nullable) turned
 * into X with `nullable: true`. fast-json-stringify chooses an anyOf branch by validating the
 * value against each branch at run time; `nullable` is a plain null check.
 */
export function serializationSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io: 'output',
    target: 'draft-7',
    reused: 'inline',
    metadata: z.registry<z.GlobalMeta>(),
  }) as JsonSchema;
  delete json.$schema;
  return simplifyNullable(json) as JsonSchema;
}

function isNull(s: unknown): boolean {
  return typeof s === 'object' && s !== null && (s as JsonSchema).type === 'null' && Object.keys(s).length === 1;
}

function simplifyNullable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(simplifyNullable);
  if (value === null || typeof value !== 'object') return value;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(value)) out[k] = simplifyNullable(v);
  const anyOf = out.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2 && anyOf.some(isNull)) {
    const other = anyOf.find((s) => !isNull(s)) as JsonSchema;
    if (typeof other.type === 'string' && other.anyOf === undefined) {
      const { anyOf: _drop, ...rest } = out;
      return { ...rest, ...other, nullable: true };
    }
  }
  return out;
}

type Compiled = (data: unknown) => string;

function compileJson(json: JsonSchema): Compiled {
  return fastJson(json as unknown as Parameters<typeof fastJson>[0]) as Compiled;
}

/** Serializes one response contract: compiled once, per route and status. */
export function compileSerializer(schema: z.ZodType): Compiled {
  return compileJson(serializationSchema(schema));
}

/** Answers are encoded in groups of about this many characters: small enough to be read while still in the cache. */
const GROUP_CHARS = 32 * 1024;

/** JSON text appended piece by piece and encoded into UTF-8 every GROUP_CHARS characters. */
class Utf8Groups {
  private group = '';
  private readonly chunks: Buffer[] = [];

  write(text: string): void {
    this.group += text;
    if (this.group.length >= GROUP_CHARS) this.encode();
  }

  bytes(): Buffer {
    if (this.group !== '') this.encode();
    return this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
  }

  private encode(): void {
    this.chunks.push(Buffer.from(this.group));
    this.group = '';
  }
}

/** Writes one value of a schema into the groups. */
type Part = (value: unknown, out: Utf8Groups) => void;

const isObjectSchema = (s: unknown): s is JsonSchema => typeof s === 'object' && s !== null && (s as JsonSchema).type === 'object';
const isArrayOfObjects = (s: JsonSchema): boolean => s.type === 'array' && isObjectSchema(s.items);
/** What an object schema may say for its members to be written one property at a time: declared properties and nothing else. */
const PLAIN_OBJECT_KEYS = new Set(['type', 'properties', 'required', 'additionalProperties', 'nullable', 'description', 'id', 'title']);

/**
 * How a value of `schema` is written in parts, or null when fast-json-stringify should write it
 * whole: an array of objects is written item by item (each item whole), and a plain object with
 * such an array somewhere along its object properties is written property by property, runs of
 * the other properties each by a serializer of its own. Null values and missing properties are
 * written, or refused, as fast-json-stringify does: a null object or array that is not nullable
 * is `{}` or `[]`, a missing required property an error.
 */
function partOf(schema: JsonSchema): Part | null {
  const nullable = schema.nullable === true;
  if (isArrayOfObjects(schema)) {
    const item = compileJson(schema.items as JsonSchema);
    return (value, out) => {
      if (value === null) return out.write(nullable ? 'null' : '[]');
      if (!Array.isArray(value)) throw new TypeError('An array of the response does not match its schema definition.');
      out.write('[');
      for (let i = 0; i < value.length; i++) out.write(i > 0 ? `,${item(value[i])}` : item(value[i]));
      out.write(']');
    };
  }
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!isObjectSchema(schema) || !properties || Object.keys(schema).some((k) => !PLAIN_OBJECT_KEYS.has(k))) return null;
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return null;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  // In the order fast-json-stringify writes them: the required properties first, each group in schema order.
  const names = Object.keys(properties).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  const parts = names.map((k) => partOf(properties[k] as JsonSchema));
  if (parts.every((p) => p === null)) return null;

  type Step = { run: Compiled } | { key: string; member: string; part: Part; required: boolean };
  const steps: Step[] = [];
  let run: string[] = [];
  const endRun = () => {
    if (run.length === 0) return;
    const keys = run;
    steps.push({ run: compileJson({ type: 'object', properties: Object.fromEntries(keys.map((k) => [k, properties[k]])), required: keys.filter((k) => required.has(k)) }) });
    run = [];
  };
  for (const [i, key] of names.entries()) {
    const part = parts[i];
    if (!part) {
      run.push(key);
      continue;
    }
    endRun();
    steps.push({ key, member: `${JSON.stringify(key)}:`, part, required: required.has(key) });
  }
  endRun();

  return (value, out) => {
    if (value === null) return out.write(nullable ? 'null' : '{}');
    if (typeof value !== 'object') throw new TypeError('An object of the response does not match its schema definition.');
    out.write('{');
    let written = false;
    for (const step of steps) {
      if ('run' in step) {
        // The run's properties as an object of their own, '{...}' without its braces.
        const members = step.run(value).slice(1, -1);
        if (members === '') continue;
        out.write(written ? `,${members}` : members);
      } else {
        const member = (value as Record<string, unknown>)[step.key];
        if (member === undefined) {
          if (step.required) throw new Error(`${JSON.stringify(step.key)} is required!`);
          continue;
        }
        out.write(written ? `,${step.member}` : step.member);
        step.part(member, out);
      }
      written = true;
    }
    out.write('}');
  };
}

/**
 * A serializer for an answer whose bulk is arrays of objects (a page of courses, the bundles, a
 * course's modules), that encodes it into UTF-8 as it goes, ~32 KB at a time, each item written
 * whole by fast-json-stringify: the same JSON, byte for byte, as compileSerializer's, from
 * serializers compiled from the same schema (so still only declared properties). Null when the
 * schema has no such array along plain objects (partOf).
 *
 * Why: fast-json-stringify builds an answer by appending to one string, which V8 keeps as a tree
 * of thousands of small pieces until something reads it, and everything a route answers is read
 * once to be encoded. Past ~100 KB that tree no longer fits in the CPU's cache, and reading it
 * cost more than writing it. Writing and encoding, medians of 7 alternating rounds in one
 * process on the bench database: a page of 50 courses (200 KB) 640 → 430 µs, a page of 100
 * 1,510 → 960 µs, a page of 12 (48 KB) 84 → 89 µs.
 */
export function compileItemwiseSerializer(schema: z.ZodType): ((data: unknown) => Buffer) | null {
  const part = partOf(serializationSchema(schema));
  if (!part) return null;
  return (data) => {
    const out = new Utf8Groups();
    part(data, out);
    return out.bytes();
  };
}

/**
 * The serializer of one response contract as a route uses it: item by item where the answer is
 * made of arrays of objects (compileItemwiseSerializer), else whole with long answers as bytes.
 * Typed as Fastify types serializers; at run time Fastify sends a string or a Buffer.
 */
export function compileResponseSerializer(schema: z.ZodType): (data: unknown) => string {
  const itemwise = compileItemwiseSerializer(schema);
  return itemwise ? (itemwise as unknown as (data: unknown) => string) : sendingBytes(compileSerializer(schema));
}

/** From this many characters on, a serialized answer is sent as UTF-8 bytes (responseBody). */
export const BYTES_FROM = 16 * 1024;

/**
 * A serialized answer as a route hands it to Fastify: a long one as UTF-8 bytes, a short one as
 * it is. A long string body is walked more than once on its way out: Fastify counts its UTF-8
 * bytes for content-length, then node's writev (the body goes out with the headers) counts them
 * again for a fresh allocation and encodes it there. A Buffer is encoded once and written as it
 * is. For a 200 KB page of the catalog: 8.28 → 7.38 ms of CPU per request (system time 2.0 →
 * 1.6 ms), in eight alternating pairs of runs, every pair the same way. Fastify sends a Buffer
 * from a serializer untouched, with its length as content-length.
 */
export function responseBody(json: string): string | Buffer {
  return json.length >= BYTES_FROM ? Buffer.from(json) : json;
}

/** A serializer whose answers go out through responseBody (typed as Fastify types serializers). */
export function sendingBytes(serialize: (data: unknown) => string): (data: unknown) => string {
  // Fastify's types say a serializer returns a string; at run time it sends a string or a Buffer.
  return (data) => responseBody(serialize(data)) as string;
}

const zodSerializer = createSerializerCompiler({});

/**
 * Fastify's serializer compiler for the app: compiled serializers, long answers sent as bytes
 * (responseBody), and an answer made of arrays of objects written item by item
 * (compileResponseSerializer). A schema with no JSON Schema form (a transform, which no response contract
 * should carry) falls back to zod's encoding, so it still works, only slower.
 */
export const serializerCompiler: FastifySerializerCompiler<z.ZodType> = (route) => {
  const schema = route.schema;
  if (!(schema instanceof z.ZodType)) return zodSerializer(route as never);
  try {
    return compileResponseSerializer(schema);
  } catch {
    return zodSerializer(route as never);
  }
};
