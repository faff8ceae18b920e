import { checkQuestion, checkText, type ImportedQuestion, type ImportProblem, optionId, type ParseResult } from './types.js';

// The Aiken format (docs/authoring.md, "Importing questions"): a question on one line, then its
// options `A. text` or `A) text` (one per line, letters in order), then `ANSWER: B`; questions
// apart by blank lines or by nothing. Every question is single choice. One pass over the lines.

const OPTION = /^([A-Z])[.)]\s+(.*)$/;
const ANSWER = /^ANSWER\s*:\s*(.*)$/i;

/** Parses Aiken text: every question, or every problem (by line). */
export function parseAiken(text: string): ParseResult {
  const bad = checkText(text);
  if (bad) return { questions: [], problems: [bad] };
  const questions: ImportedQuestion[] = [];
  const problems: ImportProblem[] = [];
  let q: ImportedQuestion | null = null;
  /** The question being read had a wrong option line (named already): its ANSWER adds nothing. */
  let broken = false;
  const problem = (line: number, code: ImportProblem['code'], message: string, detail?: string) =>
    problems.push({ line, code, message, detail });
  const close = (line: number) => {
    if (q !== null) problem(q.line, 'missing_answer', `the question has no ANSWER: line (before line ${line})`);
    q = null;
  };
  for (const [i, raw] of text.split(/\r\n|\n|\r/).entries()) {
    const line = i + 1;
    const trimmed = raw.trim();
    if (trimmed === '') continue;
    const answer = ANSWER.exec(trimmed);
    if (answer) {
      if (q === null) {
        problem(line, 'bad_answer', 'an ANSWER: line without a question before it');
        continue;
      }
      const letter = answer[1].trim().toUpperCase();
      const k = letter.length === 1 ? letter.charCodeAt(0) - 65 : -1;
      if (k < 0 || k >= q.options.length) {
        problem(line, 'bad_answer', `ANSWER: ${answer[1].trim()} names no option of the question`, answer[1].trim().slice(0, 20));
      } else if (!broken) {
        q.options[k].isCorrect = true;
        if (checkQuestion(q, problems)) questions.push(q);
      }
      q = null;
      broken = false;
      continue;
    }
    const option = q === null ? null : OPTION.exec(trimmed);
    if (q !== null && option) {
      const expected = String.fromCharCode(65 + q.options.length);
      if (option[1] !== expected) {
        broken = true;
        problem(line, 'bad_answer', `option ${option[1]} where ${expected} was expected`, option[1]);
        continue;
      }
      q.options.push({ id: optionId(q.options.length), text: option[2].trim(), isCorrect: false });
      continue;
    }
    if (q !== null && q.options.length > 0) {
      close(line);
      broken = false;
    }
    if (q !== null) {
      // A question's text on more than one line, before its first option.
      q.questionText = `${q.questionText}\n${trimmed}`;
      continue;
    }
    q = {
      questionText: trimmed,
      questionType: 'multiple_choice',
      points: 1,
      options: [],
      correctAnswer: null,
      essayAnswer: null,
      explanation: null,
      tags: [],
      line,
    };
  }
  if (q !== null) problem((q as ImportedQuestion).line, 'missing_answer', 'the question has no ANSWER: line (at the end of the text)');
  return { questions, problems };
}
