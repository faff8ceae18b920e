import type { FastifySerializerCompiler } from 'fastify';
import { createSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type Compiled, compileJson, itemwiseWriter, type JsonSchema } from './itemwise.js';

// Responses are written by compiled serializers (fast-json-stringify, Fastify's own) built from
// the JSON Schema of the zod contracts, not by running zod over every answer: zod builds a copy
// of each answer and was most of the CPU a large course detail cost (issue 14). The serializer
// writes only the properties a schema declares, so a public schema still cannot carry an answer
// key, whatever the query returned. Requests are still validated by zod.

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

/** Serializes one response contract: compiled once, per route and status. */
export function compileSerializer(schema: z.ZodType): Compiled {
  return compileJson(serializationSchema(schema));
}

/**
 * A serializer for an answer whose bulk is arrays of objects (a page of courses, the bundles, a
 * course's modules), that encodes it into UTF-8 as it goes, ~32 KB at a time, each item written
 * whole by fast-json-stringify: the same JSON, byte for byte, as compileSerializer's, from
 * serializers compiled from the same schema (so still only declared properties). Null when the
 * schema has no such array along plain objects (itemwise.ts).
 *
 * Why: fast-json-stringify builds an answer by appending to one string, which V8 keeps as a tree
 * of thousands of small pieces until something reads it, and everything a route answers is read
 * once to be encoded. Past ~100 KB that tree no longer fits in the CPU's cache, and reading it
 * cost more than writing it. Writing and encoding, medians of 7 alternating rounds in one
 * process on the bench database: a page of 50 courses (200 KB) 640 → 430 µs, a page of 100
 * 1,510 → 960 µs, a page of 12 (48 KB) 84 → 89 µs.
 */
export function compileItemwiseSerializer(schema: z.ZodType): ((data: unknown) => Buffer) | null {
  return itemwiseWriter(serializationSchema(schema));
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

/** From this many characters on, a serialized answer is sent as UTF-8 bytes (sendingBytes). */
export const BYTES_FROM = 16 * 1024;

/**
 * A serializer whose long answers go out as UTF-8 bytes, short ones as they are. A long string
 * body is walked more than once on its way out: Fastify counts its UTF-8 bytes for
 * content-length, then node's writev (the body goes out with the headers) counts them again for
 * a fresh allocation and encodes it there. A Buffer is encoded once and written as it is. For a
 * 200 KB page of the catalog: 8.28 → 7.38 ms of CPU per request (system time 2.0 → 1.6 ms), in
 * eight alternating pairs of runs, every pair the same way. Fastify sends a Buffer from a
 * serializer untouched, with its length as content-length; its types say a serializer returns a
 * string, hence the cast.
 */
function sendingBytes(serialize: Compiled): (data: unknown) => string {
  return (data) => {
    const json = serialize(data);
    return (json.length >= BYTES_FROM ? Buffer.from(json) : json) as string;
  };
}

const zodSerializer = createSerializerCompiler({});

/**
 * Fastify's serializer compiler for the app: compiled serializers, long answers sent as bytes
 * (sendingBytes), and an answer made of arrays of objects written item by item
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
