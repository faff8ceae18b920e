/** Every answer-key field the spec names, on questions and on options. */
export const ANSWER_KEY_FIELDS = [
  'correctAnswer',
  'correct_answer',
  'essayAnswer',
  'essay_answer',
  'explanation',
  'isCorrect',
  'is_correct',
  'correct',
];

/**
 * Walks a whole JSON value and returns the path of every property named like an answer key,
 * at any depth ([] when there is none).
 */
export function findAnswerKeys(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => findAnswerKeys(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [
    ...(ANSWER_KEY_FIELDS.includes(k) ? [`${path}.${k}`] : []),
    ...findAnswerKeys(v, `${path}.${k}`),
  ]);
}
