import { z } from 'zod';
import { MAX_ID, text } from './text.js';

// Learners taking a course (docs/architecture.md, "Taking a course"): chapters, quiz attempts,
// certificates. No schema here has an answer-key field: the serializer writes only declared fields,
// so none can leak.

const id = (what: string) => z.coerce.number().int().min(1).max(MAX_ID).describe(what);

export const ChapterIdParams = z.object({ id: id('The chapter id') });
export const QuizIdParams = z.object({ id: id('The quiz id') });
export const AttemptIdParams = z.object({ id: id('The attempt id (from starting it)') });
export const LearningCourseIdParams = z.object({ id: id('The course id') });

export const LearnerChapter = z
  .object({
    id: z.number().int(),
    courseId: z.number().int(),
    courseName: z.string(),
    moduleId: z.number().int(),
    moduleName: z.string(),
    name: z.string(),
    content: z.string(),
    expectedMinutes: z
      .number()
      .int()
      .describe("Minutes a learner is expected to spend on it: its author's, or estimated from its text (200 words a minute)"),
    completed: z.boolean(),
    quizId: z.number().int().nullable().describe("The chapter's quiz, if any: passing it unlocks the next chapter"),
    nextChapterId: z.number().int().nullable().describe('The next chapter in course order (it may still be locked)'),
  })
  .meta({ id: 'LearnerChapter' });

export const ChapterResponse = z.object({ success: z.literal(true), chapter: LearnerChapter }).meta({ id: 'ChapterResponse' });

export const CompletionResponse = z
  .object({
    success: z.literal(true),
    chapter: LearnerChapter,
    certificateCode: z.string().nullable().describe('Set when this completion earned the course certificate'),
  })
  .meta({ id: 'CompletionResponse' });

/** `POST /api/learning/chapters/{id}/heartbeat`: the chapter page is open and visible; nothing else is sent. */
export const HeartbeatBody = z
  .strictObject({ visible: z.literal(true).describe('Sent only while the page is visible') })
  .meta({ id: 'HeartbeatBody' });

export const ChapterTimeOut = z
  .object({
    expectedMinutes: z.number().int(),
    activeSeconds: z.number().int().describe("The server's measure of the learner's active time on the chapter"),
    requiredSeconds: z
      .number()
      .int()
      .nullable()
      .describe("Active seconds the course's credit requires before the chapter may be completed, or null: none"),
    remainingSeconds: z.number().int().describe('Seconds still to spend before completion (0: none)'),
  })
  .meta({ id: 'ChapterTime' });

export const HeartbeatResponse = z.object({ success: z.literal(true), time: ChapterTimeOut }).meta({ id: 'HeartbeatResponse' });

export const LearnerQuestion = z
  .object({
    id: z.number().int(),
    questionText: z.string(),
    questionType: z.string(),
    points: z.number().int(),
    options: z.array(z.object({ id: z.string(), text: z.string() })),
  })
  .meta({ id: 'LearnerQuestion', description: 'A question without any answer key.' });

export const QuizAttemptResponse = z
  .object({
    success: z.literal(true),
    attemptId: z.number().int(),
    attemptNumber: z.number().int().describe('1 for the first attempt at this quiz'),
    startedAt: z.iso.datetime(),
    expiresAt: z.iso.datetime().nullable().describe('Answers are accepted until then (plus 30 s for the network); null: no time limit'),
    quiz: z.object({
      id: z.number().int(),
      courseId: z.number().int(),
      name: z.string(),
      description: z.string(),
      scope: z.enum(['chapter', 'module', 'final']),
      passMark: z
        .number()
        .int()
        .describe("The score needed to pass: the quiz's minimumScore, or the course's minPassingScore for the final exam"),
      timeLimit: z.number().int().describe('Minutes'),
      maxAttempts: z.number().int(),
    }),
    questions: z.array(LearnerQuestion),
  })
  .meta({ id: 'QuizAttemptResponse' });

/**
 * A learner's answers, as the JSON route and the quiz page's form send them. Keys and values are
 * text() like every other client string (no NUL, no lone surrogate: PostgreSQL's jsonb, where
 * attempts keep their answers, refuses both).
 */
export const QuizAnswers = z
  .record(text().max(20), text().max(10_000))
  .refine((a) => Object.keys(a).length <= 500, 'At most 500 answers')
  .describe('questionId → the chosen option id, or the answer text');

export const SubmissionBody = z.object({ answers: QuizAnswers }).meta({ id: 'SubmissionBody' });

export const SubmissionResponse = z
  .object({
    success: z.literal(true),
    attemptId: z.number().int(),
    quizId: z.number().int(),
    courseId: z.number().int(),
    score: z.number().describe('0-100, points-weighted over the scored questions, 2 decimals'),
    passed: z.boolean(),
    passMark: z.number().int(),
    attemptNumber: z.number().int(),
    attemptsLeft: z.number().int(),
    scoredQuestions: z.number().int().describe('Questions that counted: essay questions without a key are not scored'),
    submittedAt: z.iso.datetime(),
    certificateCode: z.string().nullable().describe('Set when this submission earned the course certificate'),
  })
  .meta({ id: 'SubmissionResponse' });

export const LearnerCertificate = z
  .object({
    code: z.string().describe('The verification code: anyone can check it at /certificates/{code}'),
    courseId: z.number().int(),
    courseName: z.string(),
    kum: z.number().nullable().describe("The course's KUM when the certificate was issued"),
    issuedAt: z.iso.datetime(),
    verificationUrl: z.string(),
    credentialUrl: z
      .string()
      .describe('Where the holder downloads it as an Open Badges 3.0 credential (VC-JWT; session only, the holder only)'),
    status: z
      .enum(['valid', 'revoked', 'expired'])
      .describe('Revoked by an admin (see revokedAt), past its expiresAt, or valid: the same rule as the public page'),
    revokedAt: z.iso.datetime().nullable(),
    expiresAt: z.iso.datetime().nullable().describe("Null: it does not expire (the course's certificateValidMonths at issue)"),
  })
  .meta({ id: 'LearnerCertificate' });

export const CertificateListResponse = z
  .object({ success: z.literal(true), certificates: z.array(LearnerCertificate) })
  .meta({ id: 'CertificateListResponse' });
