import { z } from 'zod';
import { BANK_TAG, BankQuestionInput, BankQuestionOut, QUESTION_BANK_LIMITS } from './authoring.js';
import { ErrorResponse } from './errors.js';
import { idNumber, text } from './text.js';

// A course's question bank (docs/authoring.md, "Question bank"): questions no quiz owns, which a
// quiz with a drawCount draws from for each attempt; and the import of questions written in
// GIFT, Aiken or CSV into the bank or into one quiz of the course.

/** The formats an import reads. */
export const IMPORT_FORMATS = ['gift', 'aiken', 'csv'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Bounds of one import (each refusal names its line, or the whole text for line 0). */
export const IMPORT_LIMITS = {
  /** Characters of one import's text. */
  chars: 1_000_000,
  /** Lines of one import's text. */
  lines: 50_000,
  /** Questions of one import. */
  questions: 500,
  /** Problems an answer names (the first ones, in line order). */
  problems: 50,
} as const;

/** `PUT /api/courses/{id}/question-bank`: the whole bank, in order (an id keeps that question; the others are deleted). */
export const QuestionBankBody = z
  .strictObject({
    questions: z
      .array(BankQuestionInput)
      .max(QUESTION_BANK_LIMITS.questionsPerBank, `at most ${QUESTION_BANK_LIMITS.questionsPerBank} questions per bank`),
  })
  .meta({ id: 'QuestionBankBody' });
export type QuestionBankBody = z.output<typeof QuestionBankBody>;

/** `POST /api/courses/{id}/question-imports`. */
export const QuestionImportBody = z
  .strictObject({
    format: z.enum(IMPORT_FORMATS).describe('gift (Moodle), aiken, or csv (see the description for the columns)'),
    text: text()
      .min(1)
      .max(IMPORT_LIMITS.chars, `at most ${IMPORT_LIMITS.chars} characters`)
      .describe(`The questions as written in the format; at most ${IMPORT_LIMITS.chars} characters and ${IMPORT_LIMITS.lines} lines`),
    quizId: idNumber()
      .nullable()
      .default(null)
      .describe("Add the questions at the end of this quiz of the course; null: into the course's question bank"),
    tags: z
      .array(text().trim().toLowerCase().regex(BANK_TAG, 'must be 1-40 letters, digits, _ or -'))
      .max(QUESTION_BANK_LIMITS.tagsPerQuestion, `at most ${QUESTION_BANK_LIMITS.tagsPerQuestion} tags`)
      .default([])
      .describe('Tags given to every imported bank question (beside those of GIFT $CATEGORY lines and the CSV tags column)'),
  })
  .meta({ id: 'QuestionImportBody' });
export type QuestionImportBody = z.output<typeof QuestionImportBody>;

export const QuestionBankResponse = z
  .object({ success: z.literal(true), courseId: z.number().int(), questions: z.array(BankQuestionOut) })
  .meta({ id: 'QuestionBankResponse' });

export const QuestionImportResponse = z
  .object({
    success: z.literal(true),
    courseId: z.number().int(),
    quizId: z.number().int().nullable().describe('The quiz the questions were added to, or null: the bank'),
    imported: z.number().int(),
    questionIds: z.array(z.number().int()),
  })
  .meta({ id: 'QuestionImportResponse' });

/** A refused import: every problem with its line (nothing was imported). */
export const QuestionImportRefusedResponse = ErrorResponse.extend({
  details: z.array(z.object({ path: z.string(), message: z.string() })),
  problems: z.array(
    z.object({
      line: z.number().int().describe('1-based line of the text; 0: the whole text'),
      code: z.string().describe('What is wrong, for a translation: unsupported_type, unclosed_brace, bad_answer, ...'),
      detail: z.string().optional(),
      message: z.string(),
    }),
  ),
}).meta({ id: 'QuestionImportRefused' });
