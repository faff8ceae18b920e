import { CoursePatchBody, DEFAULT_CREDIT_SCHEME, isChoiceKind, type QuizInput, QuizBody, type QuizOut } from '@lms/contracts';
import type { CourseRow } from '../../domain/authoring/authors.js';
import { courseFieldsOf } from '../../domain/authoring/index.js';
import { amountForInput, readAmount } from '../amount.js';
import type { FormErrorWords } from '../form-error-messages.js';
import { type FieldKind, issueMessage, issuesByField } from '../form-errors.js';
import type { Locale } from '../i18n/index.js';
import { type EvidenceFieldWords, evaluationItemsIssue, evaluationItemsOf, evaluationItemsText } from './evidence-fields.js';

// What the studio's plain HTML forms send (flat strings, ../form-body.ts) turned into the authoring
// API's own bodies, checked by the API's own schemas; and the other way, a stored row as the
// strings a form shows. A problem is reported by the form field it belongs to.

export type FormValues = Record<string, string>;
export type FieldErrors = Record<string, string>;

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const orNull = (v: string) => (v.trim() === '' ? null : v.trim());
const num = (v: string) => (v.trim() === '' ? Number.NaN : Number(v.trim().replace(',', '.')));

/** The detail sections of a course: each a textarea of `key: value` lines. */
export const DETAIL_SECTIONS = ['admissions', 'academics', 'tuitionAndFinancing', 'careers', 'studentExperience'] as const;

/** The settings form's fields, grouped as the page shows them (anchors of the checklist's links). */
export const SETTINGS_GROUPS = {
  description: ['name', 'description', 'instructor', 'courseCode', 'categoryId'],
  schedule: ['type', 'startDate', 'endDate'],
  prices: ['isPurchasable', 'price', 'priceNonMember', 'priceMahasiswa', 'currency', 'enrollmentType', 'enrollmentCode', 'eventCode'],
  // No nilaiKum: the course's accreditations set it (shown below the form, accreditations.ts).
  kum: ['creditScheme', 'certificateValidMonths', 'minPassingScore', 'previewMode'],
  evidence: ['postTestMinScore', 'evaluationItems'],
  details: [...DETAIL_SECTIONS],
} as const;

/** The settings fields whose pattern says how to write them (../form-errors.ts). */
const SETTINGS_KINDS: Record<string, FieldKind> = {
  price: 'amount',
  priceNonMember: 'amount',
  priceMahasiswa: 'amount',
  currency: 'currency',
  creditScheme: 'creditScheme',
  startDate: 'date',
  endDate: 'date',
  enrollmentCode: 'code',
  eventCode: 'code',
};

const PRICE_FIELDS = ['price', 'priceNonMember', 'priceMahasiswa'] as const;

/** A course's fields as the settings form shows them (amounts the way `locale` writes them: ../amount.ts). */
export function settingsValues(course: CourseRow, locale: Locale = 'en'): FormValues {
  const f = courseFieldsOf(course);
  const section = (s: Record<string, unknown> | null) =>
    s === null
      ? ''
      : Object.entries(s)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n');
  return {
    name: f.name,
    description: f.description,
    instructor: f.instructor,
    courseCode: f.courseCode,
    categoryId: f.categoryId === null ? '' : String(f.categoryId),
    type: f.type,
    startDate: f.startDate?.slice(0, 10) ?? '',
    endDate: f.endDate?.slice(0, 10) ?? '',
    isPurchasable: f.isPurchasable ? 'on' : '',
    price: amountForInput(f.price, locale),
    priceNonMember: amountForInput(f.priceNonMember ?? null, locale),
    priceMahasiswa: amountForInput(f.priceMahasiswa ?? null, locale),
    currency: f.currency,
    enrollmentType: f.enrollmentType,
    enrollmentCode: f.enrollmentCode ?? '',
    eventCode: f.eventCode ?? '',
    creditScheme: f.creditScheme,
    certificateValidMonths: f.certificateValidMonths === null ? '' : String(f.certificateValidMonths),
    minPassingScore: String(f.minPassingScore),
    postTestMinScore: f.postTestMinScore === null ? '' : String(f.postTestMinScore),
    evaluationItems: evaluationItemsText(f.evaluationItems),
    previewMode: f.previewMode ? 'on' : '',
    ...Object.fromEntries(DETAIL_SECTIONS.map((s) => [s, section(f[s] as Record<string, unknown> | null)])),
    version: String(course.version),
  };
}

/**
 * The form's strings as the body the API takes: every field of the form (a checkbox left out is
 * false); amounts as people type them (../amount.ts). `words`: how the evaluation items' problems
 * are said (their line); `said`: how any other problem is (../form-errors.ts).
 */
export function settingsBody(
  form: FormValues,
  words: EvidenceFieldWords,
  said: FormErrorWords,
): { body?: CoursePatchBody; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const amounts = Object.fromEntries(
    PRICE_FIELDS.map((name) => {
      const typed = str(form[name]).trim();
      if (typed === '') return [name, name === 'price' ? '0' : null];
      const read = readAmount(typed);
      if ('amount' in read) return [name, read.amount];
      errors[name] = read.problem === 'ambiguous' ? said.amountAmbiguous : read.problem === 'tooBig' ? said.amountTooBig : said.amount;
      return [name, typed];
    }),
  );
  const dateOf = (name: string) => {
    const v = str(form[name]).trim();
    if (v === '') return null;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) {
      errors[name] = said.date;
      return null;
    }
    return `${v}T00:00:00.000Z`;
  };
  const sectionOf = (name: string) => {
    const lines = str(form[name])
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '');
    if (lines.length === 0) return null;
    const out: Record<string, string | number> = {};
    for (const line of lines) {
      const at = line.indexOf(':');
      if (at < 1) {
        errors[name] ??= said.sectionLine(line.slice(0, 40));
        continue;
      }
      const key = line.slice(0, at).trim();
      const value = line.slice(at + 1).trim();
      out[key] = key === 'totalCost' ? Number(value) : value;
    }
    return out;
  };
  const raw = {
    name: str(form.name),
    description: str(form.description),
    instructor: str(form.instructor),
    courseCode: str(form.courseCode),
    categoryId: orNull(str(form.categoryId)) === null ? null : num(str(form.categoryId)),
    type: str(form.type),
    startDate: dateOf('startDate'),
    endDate: dateOf('endDate'),
    isPurchasable: str(form.isPurchasable) !== '',
    ...amounts,
    currency: str(form.currency).trim().toUpperCase(),
    enrollmentType: str(form.enrollmentType),
    enrollmentCode: orNull(str(form.enrollmentCode)),
    eventCode: orNull(str(form.eventCode)),
    // Left blank (a form of before this field): the default scheme.
    creditScheme: str(form.creditScheme).trim().toUpperCase() || DEFAULT_CREDIT_SCHEME,
    certificateValidMonths: orNull(str(form.certificateValidMonths)) === null ? null : num(str(form.certificateValidMonths)),
    minPassingScore: num(str(form.minPassingScore)),
    postTestMinScore: orNull(str(form.postTestMinScore)) === null ? null : num(str(form.postTestMinScore)),
    evaluationItems: evaluationItemsOf(str(form.evaluationItems), errors, words),
    previewMode: str(form.previewMode) !== '',
    ...Object.fromEntries(DETAIL_SECTIONS.map((s) => [s, sectionOf(s)])),
  };
  // The dates' order, said by the form (the schema's refine runs only once every field holds).
  if (raw.startDate && raw.endDate && raw.endDate < raw.startDate) errors.endDate ??= said.endBeforeStart;
  const parsed = CoursePatchBody.safeParse(raw);
  if (!parsed.success) {
    const items = parsed.error.issues.find((i) => i.path[0] === 'evaluationItems');
    if (items) errors.evaluationItems ??= evaluationItemsIssue(items, words, issueMessage(items, said));
    const byField = issuesByField(
      parsed.error,
      said,
      (path) => String(path[0] ?? 'name'),
      (field) => SETTINGS_KINDS[field] ?? 'text',
    );
    for (const [name, message] of Object.entries(byField)) errors[name] ??= message;
  }
  if (Object.keys(errors).length > 0 || !parsed.success) return { errors };
  return { body: parsed.data, errors };
}

/** A stored quiz as the quiz form's strings (`q0_text`, `q0_options`…), with `extra` blank question slots. */
export function quizValues(quiz: QuizOut | null, version: number, extra: number): FormValues {
  const values: FormValues = {
    name: quiz?.name ?? '',
    description: quiz?.description ?? '',
    minimumScore: String(quiz?.minimumScore ?? 70),
    timeLimit: String(quiz?.timeLimit ?? 30),
    maxAttempts: String(quiz?.maxAttempts ?? 3),
    evidenceRole: quiz?.evidenceRole ?? '',
    drawCount: quiz?.drawCount == null ? '' : String(quiz.drawCount),
    drawTag: quiz?.drawTag ?? '',
    shuffleOptions: quiz?.shuffleOptions ? 'on' : '',
    version: String(version),
  };
  const questions = quiz?.questions ?? [];
  questions.forEach((q, i) => {
    values[`q${i}_id`] = q.id === undefined ? '' : String(q.id);
    values[`q${i}_type`] = q.questionType;
    values[`q${i}_text`] = q.questionText;
    values[`q${i}_points`] = String(q.points);
    values[`q${i}_options`] = q.options.map((o) => o.text).join('\n');
    values[`q${i}_right`] =
      q.questionType === 'short_answer'
        ? (q.correctAnswer ?? '')
        : q.questionType === 'essay'
          ? (q.essayAnswer ?? '')
          : q.options
              .map((o, j) => (o.isCorrect ? String(j + 1) : ''))
              .filter(Boolean)
              .join(',');
    values[`q${i}_explanation`] = q.explanation ?? '';
  });
  for (let i = questions.length; i < questions.length + extra; i++) values[`q${i}_points`] = '1';
  values.count = String(questions.length + extra);
  return values;
}

const OPTION_IDS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * The quiz form's strings as the API's quiz body; a question whose text is left empty is dropped.
 * `said`: the problems' words. A true/false question left without options gets `trueFalse` (the
 * page's words for them).
 */
export function quizBody(
  form: FormValues,
  said: FormErrorWords,
  trueFalse?: [string, string],
): { body?: Omit<QuizInput, 'id'>; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const count = Math.min(Math.max(0, Math.trunc(num(str(form.count))) || 0), 200);
  const formIndex: number[] = [];
  const questions = [];
  for (let i = 0; i < count; i++) {
    const text = str(form[`q${i}_text`]).trim();
    if (text === '') continue;
    const kind = str(form[`q${i}_type`]);
    const right = str(form[`q${i}_right`]).trim();
    const typedLines = str(form[`q${i}_options`])
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '');
    const lines = kind === 'true_false' && typedLines.length === 0 && trueFalse ? [...trueFalse] : typedLines;
    const rightNumbers = new Set(
      right
        .split(/[,\s]+/)
        .filter(Boolean)
        .map((n) => Number(n)),
    );
    const choice = isChoiceKind(kind);
    if (choice && right !== '' && [...rightNumbers].some((n) => !Number.isInteger(n) || n < 1 || n > lines.length)) {
      errors[`q${i}_right`] = said.quiz.rightRange(lines.length);
    }
    const id = num(str(form[`q${i}_id`]));
    questions.push({
      ...(Number.isInteger(id) && id > 0 ? { id } : {}),
      questionType: kind,
      questionText: text,
      points: num(str(form[`q${i}_points`]) || '1'),
      options: choice ? lines.map((line, j) => ({ id: OPTION_IDS[j] ?? `o${j}`, text: line, isCorrect: rightNumbers.has(j + 1) })) : [],
      correctAnswer: kind === 'short_answer' ? right || null : null,
      essayAnswer: kind === 'essay' ? right || null : null,
      explanation: orNull(str(form[`q${i}_explanation`])),
    });
    formIndex.push(i);
  }
  const raw = {
    name: str(form.name),
    description: str(form.description),
    minimumScore: num(str(form.minimumScore)),
    timeLimit: num(str(form.timeLimit)),
    maxAttempts: num(str(form.maxAttempts)),
    evidenceRole: orNull(str(form.evidenceRole)),
    drawCount: str(form.drawCount).trim() === '' ? null : num(str(form.drawCount)),
    drawTag: orNull(str(form.drawTag).trim()),
    shuffleOptions: str(form.shuffleOptions) !== '',
    questions,
  };
  const parsed = QuizBody.safeParse(raw);
  if (!parsed.success) {
    // A question's own rule (the contract's custom issues) said from what was typed in it.
    for (const issue of parsed.error.issues) {
      const [top, at, field] = issue.path;
      if (top !== 'questions' || typeof at !== 'number' || issue.code !== 'custom') continue;
      const q = questions[at];
      const [slot, message] = q ? questionProblem(q, said) : (['right', said.invalid] as const);
      if (field === 'options' || field === 'correctAnswer') errors[`q${formIndex[at]}_${slot}`] ??= message;
    }
    const byField = issuesByField(parsed.error, said, (path) => {
      if (path[0] !== 'questions' || typeof path[1] !== 'number') return String(path[0] ?? 'name');
      const i = formIndex[path[1]];
      const field = path[2];
      const slot =
        field === 'options'
          ? path.length > 3
            ? 'options'
            : 'right'
          : field === 'questionText'
            ? 'text'
            : field === 'questionType'
              ? 'type'
              : field === 'correctAnswer'
                ? 'right'
                : String(field ?? 'text');
      return `q${i}_${slot}`;
    });
    for (const [name, message] of Object.entries(byField)) errors[name] ??= message;
  }
  if (Object.keys(errors).length > 0 || !parsed.success) return { errors };
  return { body: parsed.data, errors };
}

/** What is wrong with a choice or short-answer question as typed (the contract's custom rules), in the page's words. */
function questionProblem(
  q: { questionType: string; options: { text: string; isCorrect: boolean }[] },
  said: FormErrorWords,
): readonly ['options' | 'right', string] {
  const right = q.options.filter((o) => o.isCorrect).length;
  if (!isChoiceKind(q.questionType)) return q.options.length > 0 ? ['options', said.quiz.noOptions] : ['right', said.quiz.needAnswer];
  if (q.questionType === 'true_false' && q.options.length !== 2) return ['options', said.quiz.trueFalseTwo];
  if (q.options.length < 2) return ['options', said.quiz.twoOptions];
  if (q.questionType === 'multiple_answer' ? right < 1 : right !== 1)
    return ['right', q.questionType === 'multiple_answer' ? said.quiz.someRight : said.quiz.oneRight];
  return ['right', said.invalid];
}
