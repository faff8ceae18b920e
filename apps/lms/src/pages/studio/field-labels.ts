import type { PageContext } from '../i18n/index.js';

// The names a person reads for the studio's form fields, wherever a page names a field outside
// its form (the comparison of a stale edit, the history): never the internal names of the API
// (tuitionAndFinancing, eventCode, isCorrect, q3_right).

const QUESTION_SLOTS = ['type', 'text', 'points', 'options', 'right', 'explanation'] as const;

/** A settings field's label (a detail section's too), or null for a key the settings form does not have. */
export function settingsLabel(ctx: PageContext, key: string): string | null {
  const fields: Readonly<Record<string, unknown>> = { ...ctx.t.studio.fields, ...ctx.t.studioWords.sections };
  const label = Object.hasOwn(fields, key) ? fields[key] : undefined;
  return typeof label === 'string' ? label : null;
}

/** A quiz form field's label: its settings, or "Question 3: Options" for `q2_options`. */
export function quizLabel(ctx: PageContext, key: string): string {
  const q = ctx.t.studio.quiz;
  const slot = /^q(\d+)_(\w+)$/.exec(key);
  if (slot) {
    const part = slot[2] as (typeof QUESTION_SLOTS)[number];
    const word = part === 'type' ? q.kind : QUESTION_SLOTS.includes(part) ? q[part] : ctx.t.studioWords.otherField;
    return ctx.t.studioWords.ofQuestion(q.question(Number(slot[1]) + 1), word);
  }
  const own: Record<string, string> = {
    name: q.name,
    description: q.description,
    minimumScore: q.minimumScore,
    timeLimit: q.timeLimit,
    maxAttempts: q.maxAttempts,
    evidenceRole: q.evidenceRole,
  };
  return own[key] ?? ctx.t.studioWords.otherField;
}

/** A chapter form field's label. */
export function chapterLabel(ctx: PageContext, key: string): string {
  const own: Record<string, string> = {
    name: ctx.t.studio.outline.chapterName,
    content: ctx.t.studio.chapter.content,
    expectedMinutes: ctx.t.studio.chapter.expectedMinutes,
  };
  return own[key] ?? ctx.t.studioWords.otherField;
}
