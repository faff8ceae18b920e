import { CourseDetailResponse, CourseDetailWithAnswersResponse, CourseListResponse } from '@lms/contracts';
import t from 'tap';
import { z } from 'zod';
import { compileItemwiseSerializer, compileSerializer, serializationSchema } from '../../src/lib/serializers.js';
import { findAnswerKeys } from '../helpers/answer-keys.js';

// CI runs this file once (not again in the PostgreSQL pass): the response serializers, on literal data, no database.

// The compiled serializers write only what a schema declares: the public detail drops answer keys
// that the data carries, the one with answers keeps them, and nullable fields keep their nulls.

const question = (withKeys: boolean) => ({
  id: 1,
  quizId: 2,
  questionText: 'Q',
  questionType: 'multiple_choice',
  orderIndex: 1,
  points: 1,
  options: [{ id: 'a', text: 'A', ...(withKeys ? { isCorrect: true } : {}) }],
  ...(withKeys ? { correctAnswer: 'a', essayAnswer: null, explanation: 'because' } : {}),
});

t.test('a public schema drops every answer key the data carries, at any depth', async (t) => {
  const serialize = compileSerializer(
    z.object({ questions: z.array(z.object({ id: z.number(), options: z.array(z.object({ id: z.string() })) })) }),
  );
  const out = JSON.parse(serialize({ questions: [question(true)] }));
  t.same(out, { questions: [{ id: 1, options: [{ id: 'a' }] }] });
  t.same(findAnswerKeys(out), []);
});

t.test('the two detail schemas: keys only in the one with answers', async (t) => {
  const pub = JSON.stringify(serializationSchema(CourseDetailResponse));
  const keyed = JSON.stringify(serializationSchema(CourseDetailWithAnswersResponse));
  for (const key of ['"correctAnswer"', '"essayAnswer"', '"explanation"', '"isCorrect"']) {
    t.notOk(pub.includes(key), `public detail schema has no ${key}`);
    t.ok(keyed.includes(key), `detail with answers declares ${key}`);
  }
  // No anyOf is left for the serializer to choose by validating (nullable is a plain check).
  t.notOk(pub.includes('anyOf'));
  t.notOk(JSON.stringify(serializationSchema(CourseListResponse)).includes('anyOf'));
});

t.test('nullable, optional and const fields are written as zod would', async (t) => {
  const schema = z.object({
    success: z.literal(true),
    a: z.string().nullable(),
    b: z.object({ x: z.number() }).nullable(),
    c: z.string().optional(),
    d: z.number().int().nullable(),
  });
  const serialize = compileSerializer(schema);
  const data = { success: true as const, a: null, b: null, d: null, extra: 'dropped' };
  t.same(JSON.parse(serialize(data)), schema.parse(data));
  const full = { success: true as const, a: 's', b: { x: 1.5 }, c: 'here', d: 3 };
  t.same(JSON.parse(serialize(full)), schema.parse(full));
});

t.test('a long answer goes out as its UTF-8 bytes, a short one as it is, the same JSON either way', async (t) => {
  const { default: Fastify } = await import('fastify');
  const { serializerCompiler, BYTES_FROM } = await import('../../src/lib/serializers.js');
  const app = Fastify();
  t.teardown(() => app.close());
  app.setSerializerCompiler(serializerCompiler);
  // An array of strings: an array of objects would be written item by item, always as bytes (below).
  const Answer = z.object({ items: z.array(z.string()) });
  // Names a byte count would get wrong if characters were counted: 2-, 3- and 4-byte UTF-8,
  // a quote and a backslash to escape, and a NUL, written as \u0000.
  const name = 'Kursus dasar — café 漢字 🎓 "quoted" back\\slash \u0000 end';
  app.get<{ Querystring: { n: string } }>('/answer', { schema: { response: { 200: Answer } } }, async (request) => ({
    items: Array.from({ length: Number(request.query.n) }, (_, i) => `${name} ${i}`),
    dropped: 'not declared',
  }));
  const serialize = compileSerializer(Answer);
  for (const n of [1, 2_000]) {
    const expected = { items: Array.from({ length: n }, (_, i) => `${name} ${i}`) };
    const raw = serialize(expected);
    t.equal(raw.length >= BYTES_FROM, n > 1, `n=${n}: ${n > 1 ? 'above' : 'below'} the bytes threshold`);
    t.equal(
      typeof serializerCompiler({ schema: Answer, method: 'GET', url: '/answer', httpStatus: '200' })(expected),
      n > 1 ? 'object' : 'string',
    );
    const res = await app.inject({ url: `/answer?n=${n}` });
    t.equal(res.statusCode, 200);
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8', `n=${n}: JSON`);
    t.equal(
      Number(res.headers['content-length']),
      Buffer.byteLength(raw),
      `n=${n}: content-length is the byte count, not the character count`,
    );
    t.equal(res.body, raw, `n=${n}: the same text as the compiled serializer writes`);
    t.same(res.json(), expected, `n=${n}: parses back to the declared data (undeclared fields dropped)`);
  }
});

t.test('an answer that is mostly one array is written item by item, the same bytes as the whole-answer serializer', async (t) => {
  const Item = z.object({ id: z.number(), name: z.string(), options: z.array(z.object({ id: z.string() })), price: z.number().nullable() });
  const schema = z.object({
    success: z.literal(true),
    note: z.string().optional(),
    items: z.array(Item),
    pagination: z.object({ page: z.number() }).optional(),
  });
  const itemwise = compileItemwiseSerializer(schema);
  const whole = compileSerializer(schema);
  if (!itemwise) return t.fail('a top-level array of objects is written item by item');
  const name = 'Kursus dasar — café 漢字 🎓 "quoted" back\\slash \u0000 end';
  const item = (i: number) => ({
    id: i,
    name: `${name} ${i}`,
    options: [{ id: 'a', isCorrect: true }],
    price: i % 2 ? null : 1.5,
    correctAnswer: 'a',
  });
  const cases: Record<string, unknown> = {
    'every property': { success: true, note: 'n', items: [item(1), item(2)], pagination: { page: 2 }, extra: 'dropped' },
    'no property before or after the array but the first': { success: true, items: [item(1)] },
    'an empty array': { success: true, items: [], pagination: { page: 1 } },
    'a long array': { success: true, items: Array.from({ length: 500 }, (_, i) => item(i)) },
  };
  for (const [what, data] of Object.entries(cases)) {
    const bytes = itemwise(data);
    t.ok(Buffer.isBuffer(bytes), `${what}: UTF-8 bytes`);
    t.equal(bytes.toString('utf8'), whole(data), `${what}: the same text`);
    t.same(findAnswerKeys(JSON.parse(bytes.toString('utf8'))), [], `${what}: undeclared keys dropped in every item`);
  }
  // Through Fastify with the app's serializer compiler: sent as the bytes, short or long, as JSON.
  const { default: Fastify } = await import('fastify');
  const { serializerCompiler } = await import('../../src/lib/serializers.js');
  const app = Fastify();
  t.teardown(() => app.close());
  app.setSerializerCompiler(serializerCompiler);
  app.get<{ Querystring: { n: string } }>('/items', { schema: { response: { 200: schema } } }, async (request) => ({
    success: true as const,
    items: Array.from({ length: Number(request.query.n) }, (_, i) => item(i)),
  }));
  for (const n of [1, 500]) {
    const res = await app.inject({ url: `/items?n=${n}` });
    const text = whole({ success: true, items: Array.from({ length: n }, (_, i) => item(i)) });
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8', `n=${n}: JSON`);
    t.equal(Number(res.headers['content-length']), Buffer.byteLength(text), `n=${n}: content-length is the byte count`);
    t.equal(res.body, text, `n=${n}: the whole-answer serializer's text`);
  }

  t.throws(
    () => itemwise({ success: true }),
    /"items" is required/,
    'a required array that is missing is an error, as it is for the whole-answer serializer',
  );
  t.throws(() => itemwise({ success: true, items: 'x' }), /does not match/, 'so is an array that is not one');
  const nullable = compileItemwiseSerializer(z.object({ items: z.array(Item).nullable() }));
  t.equal(nullable?.({ items: null }).toString(), '{"items":null}', 'a nullable array that is null');

  t.equal(
    compileItemwiseSerializer(z.object({ a: z.array(z.string()) })),
    null,
    'an array of strings: left to the whole-answer serializer',
  );
  t.equal(compileItemwiseSerializer(z.object({ a: z.number() })), null, 'no array: left to it');
  t.equal(compileItemwiseSerializer(z.object({ a: z.array(Item) }).catchall(z.string())), null, 'other properties allowed: left to it');
});

t.test('arrays deeper down, several of them, and nulls are written item by item as the whole-answer serializer writes them', async (t) => {
  const Item = z.object({ id: z.number(), name: z.string() });
  const schema = z.object({
    success: z.literal(true),
    course: z.object({
      id: z.number(),
      category: z.object({ name: z.string() }).nullable(),
      modules: z.array(Item),
      note: z.string().optional(),
      quizzes: z.array(Item).nullable(),
      extra: z.object({ list: z.array(Item) }).optional(),
    }),
  });
  const itemwise = compileItemwiseSerializer(schema);
  const whole = compileSerializer(schema);
  if (!itemwise) return t.fail('arrays under an object are written item by item');
  const items = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ id: i, name: `Modul ${i} — "${'x'.repeat(i % 7)}"`, correctAnswer: 'dropped' }));
  const cases: Record<string, unknown> = {
    'everything, long': {
      success: true,
      course: { id: 1, category: { name: 'c', secret: 1 }, modules: items(2_000), note: 'n', quizzes: items(3), extra: { list: items(2) } },
    },
    'nulls and nothing optional': { success: true, course: { id: 2, category: null, modules: [], quizzes: null } },
    'a null that is not nullable': { success: true, course: { id: 3, category: null, modules: null, quizzes: [], extra: null } },
  };
  for (const [what, data] of Object.entries(cases)) t.equal(itemwise(data).toString('utf8'), whole(data), what);
  t.throws(
    () => itemwise({ success: true, course: { id: 1, category: null, quizzes: [] } }),
    /"modules" is required/,
    'a missing required array',
  );
  t.throws(() => itemwise({ success: true }), /"course" is required/, 'a missing required object');
});
