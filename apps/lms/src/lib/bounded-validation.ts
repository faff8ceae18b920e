import type { FastifySchemaCompiler } from 'fastify';
import { z } from 'zod';
import { type $ZodType, config as zodConfig, type ParseContextInternal, safeParse, util as zodUtil } from 'zod/v4/core';

// Request validation whose cost and answer stay bounded whatever the body (docs/architecture.md,
// "Bounded validation"). zod's safeParse visits every value and keeps every issue: a 0.3 MB course
// document of 20 chapters × 100 questions × 10 bad options gave 44,000 issues, a 10 MB answer and
// 2-4 s of a blocked event loop; at 2.9 MB the issues overflowed the stack inside zod (a 500).

/** At most this many problems are reported for one part of a request; the rest is not looked for. */
export const MAX_REPORTED_ISSUES = 20;
/** An object with unknown keys is one problem naming at most this many of them (and how many there are). */
export const MAX_NAMED_KEYS = 10;
/** How many values the search for more problems looks at, from the first problem on. */
export const SEARCH_BUDGET = 10_000;

/** One problem, as the error handler reads it: where, what, and (unknown keys) which keys. */
export interface BoundedIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

export type BoundedResult = { ok: true; value: unknown } | { ok: false; issues: BoundedIssue[] };

// zod's `validate` runs with `abortEarly` (a container stops before its next child once one has
// failed); `_zod.run` with the same context also gives the parsed value, so a valid input is parsed
// once, exactly as safeParse would, and an invalid one costs at most that one pass.
const ABORT_EARLY: ParseContextInternal = { async: false, abortEarly: true };

/**
 * Parses `value` with `schema` as zod would (defaults, trims, transforms), or finds at most
 * `maxIssues` of its problems. Valid input: one pass of zod. Invalid input: that pass stops at the
 * first problem, and everything before it is known to be valid; from there a walk looks for more,
 * at most `maxIssues` and SEARCH_BUDGET values: it looks at containers itself (objects, arrays,
 * records: unknown keys counted and named up to MAX_NAMED_KEYS, an array's length checked before
 * its items) and asks zod about each other value. So an invalid input costs at most one pass of
 * zod and a bounded walk, and nothing grows with the number of its problems.
 */
export function parseBounded(schema: $ZodType, value: unknown, maxIssues = MAX_REPORTED_ISSUES): BoundedResult {
  const first = schema._zod.run({ value, issues: [] }, ABORT_EARLY);
  if (first instanceof Promise) throw new Error('parseBounded: asynchronous schemas are not supported');
  if (first.issues.length === 0) return { ok: true, value: first.value };
  const issues: BoundedIssue[] = [];
  const walk: Walk = { out: issues, max: maxIssues, budget: SEARCH_BUDGET };
  collect(schema, value, [], walk, first.issues[0].path ?? []);
  if (issues.length === 0) {
    // The walk found nothing where zod did (a kind of schema it leaves whole and zod judges
    // differently): zod's own first issues, a handful since it stopped early.
    for (const raw of first.issues.slice(0, maxIssues)) {
      const iss = zodUtil.finalizeIssue(raw, ABORT_EARLY, zodConfig());
      issues.push(boundedIssue(iss, []));
    }
  }
  return { ok: false, issues: issues.slice(0, maxIssues) };
}

/**
 * The app's validator compiler (replacing fastify-type-provider-zod's, which runs safeParse): the
 * same `{ value }` on success, and on failure the same error entries the provider makes (the error
 * handler reads `instancePath`, `message`, `params.keys`), at most MAX_REPORTED_ISSUES of them.
 */
export const boundedValidatorCompiler: FastifySchemaCompiler<$ZodType> =
  ({ schema }) =>
  (data) => {
    const result = parseBounded(schema, data);
    if (result.ok) return { value: result.value };
    return { error: toValidationErrors(result.issues) as never };
  };

/** The entries Fastify puts in `error.validation`, shaped as fastify-type-provider-zod's (so its type guard knows them). */
export function toValidationErrors(issues: BoundedIssue[]) {
  return issues.map((issue) => ({
    [Symbol.for('ZodFastifySchemaValidationError')]: true,
    keyword: issue.code,
    instancePath: `/${issue.path.map(String).join('/')}`,
    schemaPath: `#/${issue.path.map(String).join('/')}/${issue.code}`,
    message: issue.message,
    params: issue.keys ? { keys: issue.keys } : {},
  }));
}

type Def = {
  type: string;
  checks?: { _zod: { def: { check: string } } }[];
  innerType?: $ZodType;
  shape?: Record<string, $ZodType>;
  catchall?: $ZodType;
  element?: $ZodType;
  keyType?: $ZodType;
  valueType?: $ZodType;
};

/** The walk's state: the problems found, how many are wanted, and how many more values it may look at. */
interface Walk {
  out: BoundedIssue[];
  max: number;
  budget: number;
}

const defOf = (schema: $ZodType) => schema._zod.def as unknown as Def;
const done = (w: Walk) => w.out.length >= w.max || w.budget <= 0;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Walks `value` along `schema`, adding problems to `w.out`. `from` is the path of the first
 * problem zod's pass met (everything before it, in zod's order, is valid): the walk skips what
 * comes before it, so it starts where the problems are.
 */
function collect(schema: $ZodType, value: unknown, path: PropertyKey[], w: Walk, from: readonly PropertyKey[]): void {
  if (done(w)) return;
  w.budget -= 1;
  const def = defOf(schema);
  switch (def.type) {
    case 'unknown':
    case 'any':
      return;
    case 'optional':
      if (value === undefined) return;
      collect(def.innerType as $ZodType, value, path, w, from);
      return;
    case 'nullable':
      if (value === null) return;
      collect(def.innerType as $ZodType, value, path, w, from);
      return;
    case 'default':
    case 'prefault':
    case 'readonly':
      if (value === undefined) {
        leaf(schema, value, path, w);
        return;
      }
      collect(def.innerType as $ZodType, value, path, w, from);
      return;
    case 'object':
      collectObject(schema, def, value, path, w, from);
      return;
    case 'array':
      collectArray(schema, def, value, path, w, from);
      return;
    case 'record':
      collectRecord(schema, def, value, path, w, from);
      return;
    default:
      leaf(schema, value, path, w);
      return;
  }
}

function collectObject(schema: $ZodType, def: Def, value: unknown, path: PropertyKey[], w: Walk, from: readonly PropertyKey[]): void {
  if (!isPlainObject(value)) {
    leaf(schema, value, path, w);
    return;
  }
  const before = w.out.length;
  const shape = def.shape as Record<string, $ZodType>;
  const catchall = def.catchall ? defOf(def.catchall).type : undefined;
  if (catchall === 'never') {
    // A strict object: its unknown keys are one problem, however many there are (looked at first:
    // counting them is cheap, and zod goes on past them).
    const named: string[] = [];
    let count = 0;
    for (const key in value) {
      if (!Object.hasOwn(value, key) || Object.hasOwn(shape, key)) continue;
      count += 1;
      if (named.length < MAX_NAMED_KEYS) named.push(key);
    }
    if (count > 0) w.out.push(unknownKeys(named, count, path));
  }
  const keys = Object.keys(shape);
  // The fields before the first problem's are valid (zod reads them in the shape's order).
  const start = from.length > 0 ? Math.max(0, keys.indexOf(String(from[0]))) : 0;
  for (let i = start; i < keys.length; i++) {
    const key = keys[i];
    collect(shape[key], Object.hasOwn(value, key) ? value[key] : undefined, [...path, key], w, i === start ? from.slice(1) : []);
    if (done(w)) return;
  }
  if (catchall !== undefined && catchall !== 'never' && catchall !== 'unknown' && catchall !== 'any') {
    for (const key in value) {
      if (!Object.hasOwn(value, key) || Object.hasOwn(shape, key)) continue;
      collect(def.catchall as $ZodType, value[key], [...path, key], w, []);
      if (done(w)) return;
    }
  }
  // Every field fine: what is left is the object's own rules (refine, superRefine), judged by zod.
  if (w.out.length === before && start === 0 && (def.checks?.length ?? 0) > 0) leaf(schema, value, path, w);
}

const SIZE_CHECKS = new Set(['max_length', 'min_length', 'length_equals']);
const sizeSchemas = new WeakMap<$ZodType, $ZodType>();

/** `schema`'s length rules alone, on an array of anything: a 100,000-item array gets its one "too big" without its items being judged. */
function sizeRules(schema: $ZodType, def: Def): $ZodType | null {
  const checks = (def.checks ?? []).filter((c) => SIZE_CHECKS.has(c._zod.def.check));
  if (checks.length === 0) return null;
  let sized = sizeSchemas.get(schema);
  if (!sized) {
    sized = z.array(z.unknown()).check(...(checks as unknown as z.core.$ZodCheck<unknown[]>[]));
    sizeSchemas.set(schema, sized);
  }
  return sized;
}

function collectArray(schema: $ZodType, def: Def, value: unknown, path: PropertyKey[], w: Walk, from: readonly PropertyKey[]): void {
  if (!Array.isArray(value)) {
    leaf(schema, value, path, w);
    return;
  }
  const sized = sizeRules(schema, def);
  if (sized) {
    const before = w.out.length;
    leaf(sized, value, path, w);
    if (w.out.length > before) return;
  }
  const before = w.out.length;
  const element = def.element as $ZodType;
  // The items before the first problem's are valid (zod reads them in order).
  const start = typeof from[0] === 'number' && from[0] < value.length ? from[0] : 0;
  for (let i = start; i < value.length; i++) {
    collect(element, value[i], [...path, i], w, i === start ? from.slice(1) : []);
    if (done(w)) return;
  }
  const otherChecks = (def.checks ?? []).some((c) => !SIZE_CHECKS.has(c._zod.def.check));
  if (w.out.length === before && start === 0 && otherChecks) leaf(schema, value, path, w);
}

function collectRecord(schema: $ZodType, def: Def, value: unknown, path: PropertyKey[], w: Walk, from: readonly PropertyKey[]): void {
  if (!isPlainObject(value)) {
    leaf(schema, value, path, w);
    return;
  }
  const before = w.out.length;
  const keyType = def.keyType as $ZodType;
  const keysMatter = defOf(keyType).type !== 'string' || (defOf(keyType).checks?.length ?? 0) > 0;
  // Keys are read in the object's own order; until the first problem's, they are valid.
  let skipping = from.length > 0 && Object.hasOwn(value, String(from[0]));
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (skipping) {
      if (key !== String(from[0])) continue;
      skipping = false;
    }
    if (keysMatter) leaf(keyType, key, [...path, key], w);
    collect(def.valueType as $ZodType, value[key], [...path, key], w, []);
    if (done(w)) return;
  }
  if (w.out.length === before && (def.checks?.length ?? 0) > 0) leaf(schema, value, path, w);
}

/** A value zod judges whole (a string, a number, an enum, a union…): its problems, under `path`. */
function leaf(schema: $ZodType, value: unknown, path: PropertyKey[], w: Walk): void {
  w.budget -= 1;
  const result = safeParse(schema, value);
  if (result.success) return;
  for (const iss of result.error.issues) {
    if (w.out.length >= w.max) return;
    w.out.push(boundedIssue(iss, path));
  }
}

function boundedIssue(iss: { code: string; path: PropertyKey[]; message: string; keys?: string[] }, path: PropertyKey[]): BoundedIssue {
  const full = [...path, ...iss.path];
  if (iss.code === 'unrecognized_keys' && Array.isArray(iss.keys))
    return unknownKeys(iss.keys.slice(0, MAX_NAMED_KEYS), iss.keys.length, full);
  return { code: iss.code, path: full, message: iss.message };
}

/** zod's own words for unknown keys (`Unrecognized keys: "a", "b"`), naming the first few and how many in all. */
function unknownKeys(named: string[], count: number, path: PropertyKey[]): BoundedIssue {
  const words = safeParse(z.strictObject({}), Object.fromEntries(named.map((k) => [k, null])));
  const message = words.success ? 'Unrecognized keys' : words.error.issues[0].message;
  return {
    code: 'unrecognized_keys',
    path,
    keys: named,
    message: count > named.length ? `${message} and ${count - named.length} more (${count} in all)` : message,
  };
}
