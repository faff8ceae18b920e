import { parseAiken } from './aiken.js';
import { parseCsv } from './csv.js';
import { parseGift } from './gift.js';
import { IMPORT_LIMITS, type ImportFormat, type ParseResult } from './types.js';

export { IMPORT_LIMITS, type ImportedQuestion, type ImportFormat, type ImportProblem } from './types.js';

/** Parses an import in its format, then bounds the number of questions. */
export function parseQuestions(format: ImportFormat, text: string): ParseResult {
  const result = format === 'gift' ? parseGift(text) : format === 'aiken' ? parseAiken(text) : parseCsv(text);
  if (result.questions.length > IMPORT_LIMITS.questions) {
    result.problems.unshift({
      line: result.questions[IMPORT_LIMITS.questions].line,
      code: 'too_many_questions',
      detail: String(IMPORT_LIMITS.questions),
      message: `more than ${IMPORT_LIMITS.questions} questions in one import`,
    });
  }
  result.problems.sort((a, b) => a.line - b.line);
  return result;
}
