import type { QuestionKind } from '@lms/contracts';
import { checkQuestion, checkText, type ImportedQuestion, type ImportProblem, optionId, type ParseResult, tagOf } from './types.js';

// CSV questions (docs/authoring.md, "Importing questions"), as Excel or LibreOffice save them:
// UTF-8 with or without a byte-order mark, separated by commas or semicolons (the first line
// decides), CRLF or LF, quoted cells with "" for a quote and line breaks inside. The first line
// names the columns, in any order, case-insensitive:
//   question (required), type (multiple_choice, multiple_answer, true_false, short_answer;
//   default multiple_choice), a..j (the options), answer (required: the right letter, letters
//   separated by ; or , or spaces for multiple_answer, true/false/benar/salah for true_false,
//   the text for short_answer), points (0-1000, default 1), explanation, tags (separated by
//   spaces, ; or ,).
// A cell Excel would read as a formula (starting with =, +, - or @) is imported as text: nothing
// here evaluates it, and the studio shows it escaped.

const TYPES: readonly QuestionKind[] = ['multiple_choice', 'multiple_answer', 'true_false', 'short_answer'];
const LETTERS = 'abcdefghij'.split('');
const KNOWN = new Set(['question', 'type', 'answer', 'points', 'explanation', 'tags', ...LETTERS]);

/** The rows of a CSV text, each with the line it starts on; null with the line of an unclosed quote. */
export function csvRows(text: string, sep: string): { rows: { cells: string[]; line: number }[]; unclosed: number | null } {
  const rows: { cells: string[]; line: number }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  let quoteLine = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        cell += c;
      }
    } else if (c === '"' && cell.trim() === '') {
      quoted = true;
      quoteLine = line;
      cell = '';
    } else if (c === sep) {
      cells.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      cells.push(cell);
      rows.push({ cells, line: rowLine });
      cells = [];
      cell = '';
      line++;
      rowLine = line;
    } else cell += c;
  }
  if (quoted) return { rows, unclosed: quoteLine };
  if (cell !== '' || cells.length > 0) {
    cells.push(cell);
    rows.push({ cells, line: rowLine });
  }
  return { rows: rows.filter((r) => r.cells.some((x) => x.trim() !== '')), unclosed: null };
}

/** Parses CSV text: every question, or every problem (by line). */
export function parseCsv(input: string): ParseResult {
  const text = input.startsWith('\uFEFF') ? input.slice(1) : input;
  const bad = checkText(text);
  if (bad) return { questions: [], problems: [bad] };
  const firstLine = text.slice(0, text.search(/\r|\n|$/));
  const sep = firstLine.split(';').length > firstLine.split(',').length ? ';' : ',';
  const { rows, unclosed } = csvRows(text, sep);
  if (unclosed !== null)
    return { questions: [], problems: [{ line: unclosed, code: 'bad_quote', message: 'a quoted cell is not closed' }] };
  const [header, ...body] = rows;
  const names = header.cells.map((h) => h.trim().toLowerCase());
  const unknown = names.filter((n) => !KNOWN.has(n));
  if (!names.includes('question') || !names.includes('answer') || unknown.length > 0) {
    const detail = unknown.length > 0 ? unknown.join(', ').slice(0, 100) : 'question, answer';
    return {
      questions: [],
      problems: [
        {
          line: header.line,
          code: 'bad_header',
          detail,
          message: `the first line must name the columns (question, answer required); not known: ${detail}`,
        },
      ],
    };
  }
  const col = (row: string[], name: string) => {
    const k = names.indexOf(name);
    return k < 0 ? '' : (row[k] ?? '').trim();
  };
  const questions: ImportedQuestion[] = [];
  const problems: ImportProblem[] = [];
  for (const { cells, line } of body) {
    const problem = (code: ImportProblem['code'], message: string, detail?: string) => problems.push({ line, code, message, detail });
    const type = (col(cells, 'type') || 'multiple_choice').toLowerCase() as QuestionKind;
    if (!TYPES.includes(type)) {
      problem('bad_type', `type "${type.slice(0, 40)}" is not one of ${TYPES.join(', ')}`, type.slice(0, 40));
      continue;
    }
    const pointsText = col(cells, 'points');
    const points = pointsText === '' ? 1 : Number(pointsText);
    if (!/^\d{1,4}$/.test(pointsText === '' ? '1' : pointsText) || points > 1000) {
      problem('bad_points', `points "${pointsText.slice(0, 20)}" must be a whole number from 0 to 1000`, pointsText.slice(0, 20));
      continue;
    }
    const tags = col(cells, 'tags')
      .split(/[\s;,]+/)
      .map(tagOf)
      .filter((t) => t !== '');
    const answer = col(cells, 'answer');
    const q: ImportedQuestion = {
      questionText: col(cells, 'question'),
      questionType: type,
      points,
      options: [],
      correctAnswer: null,
      essayAnswer: null,
      explanation: col(cells, 'explanation') || null,
      tags: [...new Set(tags)].slice(0, 10),
      line,
    };
    if (answer === '') {
      problem('missing_answer', 'the answer cell is empty');
      continue;
    }
    if (type === 'short_answer') q.correctAnswer = answer;
    else if (type === 'true_false') {
      const said = answer.toLowerCase();
      const right = ['true', 'benar', 't', 'b'].includes(said) ? true : ['false', 'salah', 'f', 's'].includes(said) ? false : null;
      if (right === null) {
        problem('bad_answer', `answer "${answer.slice(0, 20)}" of a true_false question must be true or false`, answer.slice(0, 20));
        continue;
      }
      q.options = [
        { id: 'a', text: col(cells, 'a') || 'Benar', isCorrect: right },
        { id: 'b', text: col(cells, 'b') || 'Salah', isCorrect: !right },
      ];
    } else {
      const texts = LETTERS.map((l) => col(cells, l));
      const last = texts.findLastIndex((t) => t !== '');
      q.options = texts.slice(0, last + 1).map((t, k) => ({ id: optionId(k), text: t, isCorrect: false }));
      const letters = answer
        .toLowerCase()
        .split(/[\s;,]+/)
        .filter((l) => l !== '');
      const wrong = letters.find((l) => !LETTERS.includes(l) || LETTERS.indexOf(l) > last);
      if (wrong !== undefined) {
        problem('bad_answer', `answer "${wrong.slice(0, 20)}" names no option of the row`, wrong.slice(0, 20));
        continue;
      }
      for (const l of letters) q.options[LETTERS.indexOf(l)].isCorrect = true;
    }
    if (checkQuestion(q, problems)) questions.push(q);
  }
  return { questions, problems };
}
