import { checkQuestion, checkText, type ImportedQuestion, type ImportProblem, optionId, type ParseResult, tagOf } from './types.js';

// Moodle's GIFT format (docs/authoring.md, "Importing questions"), the kinds this LMS scores
// (questions apart by blank lines; a question's answers may take several lines, without a blank one):
// multiple choice `{=right ~wrong}`, several right answers `{~%50%a ~%50%b ~%-100%c}`, true/false
// `{T}` / `{F}` (TRUE, FALSE), a short answer `{=text}`; titles `::t::`, comments `//`, feedback
// `#...` (per answer: dropped; general `####...`: the explanation), `$CATEGORY:` lines (the
// following questions' bank tag), the escapes `\~ \= \# \{ \} \: \\` and `\n`. Numeric (`{#...}`),
// matching (`{=a -> b}`), essay (`{}`), several accepted short answers and missing-word texts
// with more than one blank are reported per question as unsupported, never dropped in silence.
//
// Written here, not taken from npm: gift-pegjs (the one GIFT parser there) is built on pegjs
// 0.10, unmaintained since 2017, and a PEG parser's time on crafted input is not bounded by its
// length; this one is a single pass over characters, with no nesting (a `{` inside an answer
// block is refused, so deeply nested braces cost one error, not a deep recursion).

/** A character of the text after escapes: `lit` when it was escaped (then it is never syntax). */
interface Ch {
  c: string;
  lit: boolean;
  line: number;
}

const ESCAPABLE = new Set(['~', '=', '#', '{', '}', ':', '\\']);

/** The text as characters, escapes resolved, each with its line. */
function chars(text: string, firstLine: number): Ch[] {
  const out: Ch[] = [];
  let line = firstLine;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length && (ESCAPABLE.has(text[i + 1]) || text[i + 1] === 'n')) {
      out.push({ c: text[i + 1] === 'n' ? '\n' : text[i + 1], lit: true, line });
      i++;
      continue;
    }
    out.push({ c, lit: false, line });
    if (c === '\n') line++;
  }
  return out;
}

const str = (cs: readonly Ch[]) =>
  cs
    .map((x) => x.c)
    .join('')
    .trim();
const isSyntax = (x: Ch | undefined, c: string) => x !== undefined && !x.lit && x.c === c;

/** A block of lines (one question, or a $CATEGORY line), with the line it starts on. */
interface Block {
  text: string;
  line: number;
}

/** Blocks: separated by blank lines (an unclosed { is then named at its question); comment lines dropped. */
function blocks(text: string): Block[] {
  const out: Block[] = [];
  let current: string[] = [];
  let start = 0;
  const flush = () => {
    if (current.length > 0) out.push({ text: current.join('\n'), line: start });
    current = [];
  };
  for (const [i, raw] of text.split(/\r\n|\n|\r/).entries()) {
    const trimmed = raw.trim();
    if (trimmed.startsWith('//')) continue;
    if (trimmed === '') {
      flush();
      continue;
    }
    if (trimmed.startsWith('$CATEGORY:')) {
      flush();
      out.push({ text: trimmed, line: i + 1 });
      continue;
    }
    if (current.length === 0) start = i + 1;
    current.push(raw);
  }
  flush();
  return out;
}

/** Parses GIFT text: every question, or every problem (by line). */
export function parseGift(text: string): ParseResult {
  const bad = checkText(text);
  if (bad) return { questions: [], problems: [bad] };
  const questions: ImportedQuestion[] = [];
  const problems: ImportProblem[] = [];
  let tag: string | null = null;
  for (const block of blocks(text)) {
    const head = block.text.trim();
    if (head.startsWith('$CATEGORY:')) {
      const last = head.slice('$CATEGORY:'.length).split('/').pop() ?? '';
      tag = tagOf(last) || null;
      continue;
    }
    const q = parseQuestion(block, problems);
    if (q) {
      if (tag !== null) q.tags = [tag];
      if (checkQuestion(q, problems)) questions.push(q);
    }
  }
  return { questions, problems };
}

/** One question's block: null (with its problem recorded) when it cannot be imported. */
function parseQuestion(block: Block, problems: ImportProblem[]): ImportedQuestion | null {
  const cs = chars(block.text, block.line);
  const fail = (line: number, code: ImportProblem['code'], message: string, detail?: string) => {
    problems.push({ line, code, message, detail });
    return null;
  };
  let i = 0;
  while (i < cs.length && /\s/.test(cs[i].c)) i++;
  // ::title:: (dropped: the bank keeps the question's text)
  if (isSyntax(cs[i], ':') && isSyntax(cs[i + 1], ':')) {
    let j = i + 2;
    while (j < cs.length && !(isSyntax(cs[j], ':') && isSyntax(cs[j + 1], ':'))) j++;
    if (j >= cs.length) return fail(block.line, 'no_answer_block', 'the title ::...:: is not closed');
    i = j + 2;
  }
  const open = cs.findIndex((x, k) => k >= i && isSyntax(x, '{'));
  if (open < 0) return fail(block.line, 'no_answer_block', 'no answer block {...} in this question');
  let close = -1;
  for (let k = open + 1; k < cs.length; k++) {
    if (isSyntax(cs[k], '{')) return fail(cs[k].line, 'stray_brace', 'a { inside an answer block (write \\{ for the character)');
    if (isSyntax(cs[k], '}')) {
      close = k;
      break;
    }
  }
  if (close < 0) return fail(cs[open].line, 'unclosed_brace', 'the answer block { is not closed with }');
  const after = cs.slice(close + 1);
  const stray = after.find((x) => isSyntax(x, '{') || isSyntax(x, '}'));
  if (stray) return fail(stray.line, 'unsupported_type', 'only one answer block per question', 'several answer blocks');
  let before = str(cs.slice(i, open));
  // A format marker [markdown], [plain], [html], [moodle] before the text.
  const marker = /^\[(markdown|plain|html|moodle)\]/.exec(before);
  if (marker) before = before.slice(marker[0].length).trim();
  const rest = str(after);
  const questionText = rest === '' ? before : `${before} _____ ${rest}`;
  const body = cs.slice(open + 1, close);
  const base = { questionText, points: 1, correctAnswer: null, essayAnswer: null, explanation: null, tags: [], line: block.line };
  const inner = str(body);
  if (inner === '') return fail(block.line, 'unsupported_type', 'essay questions are not imported (no answer key)', 'essay');
  if (
    isSyntax(
      body.find((x) => !/\s/.test(x.c)),
      '#',
    )
  )
    return fail(block.line, 'unsupported_type', 'numeric questions are not supported', 'numeric');
  // True/false: T, F, TRUE, FALSE, then feedback.
  const [word, ...fb] = splitFeedback(body);
  const tf = str(word).toUpperCase();
  if (tf === 'T' || tf === 'TRUE' || tf === 'F' || tf === 'FALSE') {
    const right = tf.startsWith('T');
    return {
      ...base,
      questionType: 'true_false',
      explanation: generalFeedback(fb),
      options: [
        { id: 'a', text: 'Benar', isCorrect: right },
        { id: 'b', text: 'Salah', isCorrect: !right },
      ],
    };
  }
  const answers = splitAnswers(body);
  if (answers === null) return fail(block.line, 'bad_answer', 'an answer block holds text before its first = or ~');
  if (answers.some((a) => a.text.includes('->')))
    return fail(block.line, 'unsupported_type', 'matching questions are not supported', 'matching');
  const explanation = answers.general;
  const hasWrong = answers.some((a) => a.mark === '~');
  if (!hasWrong) {
    if (answers.length !== 1)
      return fail(
        block.line,
        'unsupported_type',
        'a short answer with several accepted answers is not supported',
        'short answer, several answers',
      );
    return { ...base, questionType: 'short_answer', options: [], correctAnswer: answers[0].text, explanation };
  }
  const weighted = answers.some((a) => a.weight !== null);
  const options = answers.map((a, k) => ({
    id: optionId(k),
    text: a.text,
    isCorrect: a.mark === '=' || (a.weight !== null && a.weight > 0),
  }));
  const right = options.filter((o) => o.isCorrect).length;
  return { ...base, questionType: weighted && right > 1 ? 'multiple_answer' : 'multiple_choice', options, explanation };
}

/** The block split at unescaped `#` marks: [before, feedback...]. */
function splitFeedback(body: readonly Ch[]): Ch[][] {
  const parts: Ch[][] = [[]];
  for (const x of body) {
    if (isSyntax(x, '#')) parts.push([]);
    else parts[parts.length - 1].push(x);
  }
  return parts;
}

/** `####` general feedback: after four marks in a row (three empty parts between them). */
function generalFeedback(fb: readonly Ch[][]): string | null {
  for (let k = 0; k + 3 < fb.length; k++) {
    if (str(fb[k]) === '' && str(fb[k + 1]) === '' && str(fb[k + 2]) === '') return str(fb.slice(k + 3).flat()) || null;
  }
  return null;
}

type Answer = { mark: '=' | '~'; weight: number | null; text: string };

/** The answers `=a ~b ~%50%c #feedback ####general`: null when text comes before the first mark. */
function splitAnswers(body: readonly Ch[]): (Answer[] & { general: string | null }) | null {
  const out = [] as unknown as Answer[] & { general: string | null };
  out.general = null;
  let current: Ch[] | null = null;
  let mark: '=' | '~' = '=';
  const push = () => {
    if (current === null) return;
    const [text, ...fb] = splitFeedback(current);
    const general = generalFeedback(fb);
    if (general !== null) out.general = general;
    let t = str(text);
    let weight: number | null = null;
    const w = /^%(-?\d{1,3}(?:\.\d{1,5})?)%/.exec(t);
    if (w) {
      weight = Number(w[1]);
      t = t.slice(w[0].length).trim();
    }
    out.push({ mark, weight, text: t });
  };
  for (const x of body) {
    if (isSyntax(x, '=') || isSyntax(x, '~')) {
      push();
      mark = x.c as '=' | '~';
      current = [];
    } else if (current === null) {
      if (!/\s/.test(x.c)) return null;
    } else current.push(x);
  }
  push();
  // A general feedback `####...` after the last answer belongs to the question, not to it.
  return out;
}
