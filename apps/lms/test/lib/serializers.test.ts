import { CourseDetailResponse, CourseDetailWithAnswersResponse, CourseListResponse } from '@lms/contracts';
import t from 'tap';
import { z } from 'zod';
import { compileSerializer, serializationSchema } from '../../src/lib/serializers.js';
import { findAnswerKeys } from '../helpers/answer-keys.js';

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
  const serialize = compileSerializer(z.object({ questions: z.array(z.object({ id: z.number(), options: z.array(z.object({ id: z.string() })) })) }));
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
