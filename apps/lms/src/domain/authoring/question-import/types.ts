import { AUTHORING_LIMITS, IMPORT_LIMITS as CONTRACT_LIMITS, type QuestionInput } from '@lms/contracts';

// What the three import formats (GIFT, Aiken, CSV) parse into: questions as the authoring API
// writes them, or problems each naming its line. Every parser is one linear pass over at most
// IMPORT_LIMITS.chars characters (no regular expression that can backtrack over a whole line),
// so its time is bounded by the size limit; the caller refuses the whole import on any problem.

export type { ImportFormat } from '@lms/contracts';

/** The contract's bounds (QuestionImportBody), and those of one question's texts (as QuestionInput bounds them). */
export const IMPORT_LIMITS = {
  ...CONTRACT_LIMITS,
  questionChars: 10_000,
  optionChars: 2000,
  explanationChars: 10_000,
  /** Options of one question. */
  options: AUTHORING_LIMITS.optionsPerQuestion,
} as const;

/**
 * Why a line is refused, as a code the pages translate (pages/studio/question-import-messages.ts)
 * with its parameters, and an English sentence for the JSON API.
 */
export type ImportProblemCode =
  | 'too_long'
  | 'too_many_lines'
  | 'too_many_questions'
  | 'nul'
  | 'empty'
  | 'unsupported_type'
  | 'unclosed_brace'
  | 'stray_brace'
  | 'no_answer_block'
  | 'no_right_answer'
  | 'too_few_options'
  | 'too_many_options'
  | 'text_too_long'
  | 'no_question_text'
  | 'missing_answer'
  | 'bad_answer'
  | 'bad_header'
  | 'bad_type'
  | 'bad_points'
  | 'bad_quote'
  | 'bad_tag';

export interface ImportProblem {
  /** 1-based line of the text (0: the whole text). */
  line: number;
  code: ImportProblemCode;
  /** What the message names beside the line (a type, a letter, a limit). */
  detail?: string;
  message: string;
}

/** One imported question: what QuestionInput takes, with its bank tags. */
export type ImportedQuestion = Omit<QuestionInput, 'id'> & { tags: string[]; line: number };

export interface ParseResult {
  questions: ImportedQuestion[];
  problems: ImportProblem[];
}

/** Option ids a, b, c, ... (as the studio and the seed write them). */
export const optionId = (i: number) => String.fromCharCode(97 + i);

/** The checks every format shares once a question is read: lengths and counts. */
export function checkQuestion(q: ImportedQuestion, problems: ImportProblem[]): boolean {
  const before = problems.length;
  const add = (code: ImportProblemCode, message: string, detail?: string) => problems.push({ line: q.line, code, message, detail });
  if (q.questionText.trim() === '') add('no_question_text', 'the question has no text');
  if (q.questionText.length > IMPORT_LIMITS.questionChars)
    add('text_too_long', `the question's text is over ${IMPORT_LIMITS.questionChars} characters`, String(IMPORT_LIMITS.questionChars));
  if (q.options.some((o) => o.text.length > IMPORT_LIMITS.optionChars || o.text.trim() === ''))
    add('text_too_long', `an option is empty or over ${IMPORT_LIMITS.optionChars} characters`, String(IMPORT_LIMITS.optionChars));
  if ((q.explanation?.length ?? 0) > IMPORT_LIMITS.explanationChars)
    add('text_too_long', `the feedback is over ${IMPORT_LIMITS.explanationChars} characters`, String(IMPORT_LIMITS.explanationChars));
  if (q.questionType !== 'short_answer') {
    if (q.options.length > IMPORT_LIMITS.options)
      add('too_many_options', `${q.options.length} options: at most ${IMPORT_LIMITS.options}`, String(IMPORT_LIMITS.options));
    else if (q.options.length < 2) add('too_few_options', 'a choice question needs at least 2 options');
    const right = q.options.filter((o) => o.isCorrect).length;
    if (right === 0) add('no_right_answer', 'no option is marked right');
    else if (q.questionType !== 'multiple_answer' && right > 1) add('bad_answer', 'more than one option is marked right', String(right));
  } else if ((q.correctAnswer ?? '').length > 1000) {
    add('text_too_long', 'the answer is over 1000 characters', '1000');
  }
  return problems.length === before;
}

/** The bounds every format checks before parsing: size, NUL, lines. Null when within them. */
export function checkText(text: string): ImportProblem | null {
  if (text.length > IMPORT_LIMITS.chars)
    return {
      line: 0,
      code: 'too_long',
      detail: String(IMPORT_LIMITS.chars),
      message: `the text is over ${IMPORT_LIMITS.chars} characters`,
    };
  const nul = text.indexOf('\u0000');
  if (nul >= 0) {
    const line = countLines(text, nul);
    return { line, code: 'nul', message: 'the text holds a NUL character (a binary file?)' };
  }
  if (countLines(text, text.length) > IMPORT_LIMITS.lines)
    return {
      line: 0,
      code: 'too_many_lines',
      detail: String(IMPORT_LIMITS.lines),
      message: `the text has over ${IMPORT_LIMITS.lines} lines`,
    };
  if (text.trim() === '') return { line: 0, code: 'empty', message: 'the text holds no question' };
  return null;
}

/** The 1-based line of `offset` in `text`. */
export function countLines(text: string, offset: number): number {
  let n = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** A bank tag as stored: trimmed, lower case, spaces and slashes as dashes; '' when nothing is left. */
export function tagOf(raw: string): string {
  return raw
    .trim()
    .toLowerCase()
    .replace(/[\s/]+/g, '-')
    .replace(/[^\p{L}\p{N}_-]/gu, '')
    .slice(0, 40);
}
