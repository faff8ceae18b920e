import fastJson from 'fast-json-stringify';

// Writing an answer in parts (serializers.ts decides which answers): each array of objects item
// by item, each item by fast-json-stringify, the text encoded into UTF-8 about 32 KB at a time.
// Why, and the figures: compileItemwiseSerializer in serializers.ts.

/** A JSON Schema as fast-json-stringify reads it. */
export type JsonSchema = { [key: string]: unknown };

/** A compiled fast-json-stringify serializer. */
export type Compiled = (data: unknown) => string;

/** fast-json-stringify's serializer for a JSON Schema. */
export function compileJson(json: JsonSchema): Compiled {
  return fastJson(json as unknown as Parameters<typeof fastJson>[0]) as Compiled;
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
    steps.push({
      run: compileJson({
        type: 'object',
        properties: Object.fromEntries(keys.map((k) => [k, properties[k]])),
        required: keys.filter((k) => required.has(k)),
      }),
    });
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
 * The writer of a value of `json` in parts, into UTF-8 bytes: the same text, byte for byte, as
 * compileJson(json) writes. Null when nothing in it is written in parts (partOf).
 */
export function itemwiseWriter(json: JsonSchema): ((data: unknown) => Buffer) | null {
  const part = partOf(json);
  if (!part) return null;
  return (data) => {
    const out = new Utf8Groups();
    part(data, out);
    return out.bytes();
  };
}
