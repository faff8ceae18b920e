import type { ChecklistItem, CourseDocumentOut } from '@lms/contracts';
import type { CourseRow, QuizReadiness } from '../../domain/authoring/index.js';
import type { PageContext } from '../i18n/index.js';
import { settingsLabel } from './field-labels.js';

// The publish checklist and the course's history in the person's words: each checklist rule said
// from the course itself (the API's item messages are English, for the API), and each history
// change as "Chapter 3: content changed", never its internal path (`chapters[262].content`).

/** What a checklist item says on the page: the rule's state in the page's language, amounts in its format. */
export function checklistWords(ctx: PageContext, course: CourseRow, item: ChecklistItem, quizzes: QuizReadiness[]): string {
  const c = ctx.t.studioWords.checklist;
  switch (item.rule) {
    case 'chapters':
      return course.chapter_count > 0 ? c.chapters(course.chapter_count) : c.noChapters;
    case 'quizzes': {
      const bad = quizzes.flatMap((q) => {
        const what = q.scope === 'final' ? c.finalExam(q.name) : q.scope === 'module' ? c.moduleQuiz(q.name) : c.chapterQuiz(q.name);
        if (q.drawCount !== null) {
          const from = q.drawTag === null ? c.bank : c.bankTagged(q.drawTag);
          if (q.bank.n < q.drawCount) return [c.bankTooSmall(what, q.drawCount, from, q.bank.n)];
          if (q.bank.withoutKey > 0) return [c.bankWithoutKey(what, q.bank.withoutKey, from)];
          if (q.withoutKey > 0) return [c.withoutKey(what, q.withoutKey)];
          return q.scored + q.bank.scored === 0 ? [c.noScored(what)] : [];
        }
        if (q.questions === 0) return [c.noQuestions(what)];
        if (q.withoutKey > 0) return [c.withoutKey(what, q.withoutKey)];
        if (q.scored === 0) return [c.noScored(what)];
        return [];
      });
      return bad.length === 0 ? c.quizzesOk(quizzes.length) : c.quizzesBad(bad.join('; '));
    }
    case 'prices':
      if (item.ok) return course.is_purchasable ? c.soldAt(Number(course.price), course.currency) : c.free;
      return course.is_purchasable ? c.needsPrice : c.freeHasPrice;
    case 'dates':
      return item.ok ? c.datesOk : c.datesBad;
    case 'eventCode':
      return course.event_code !== null ? c.eventCode(course.event_code) : c.noEventCode;
    case 'enrollmentCode': {
      const f = ctx.t.studio.fields;
      if (course.enrollment_type !== 'code')
        return c.enrolment(
          course.enrollment_type === 'open' ? f.enrollOpen : course.enrollment_type === 'approval' ? f.enrollApproval : f.enrollCode,
        );
      return course.enrollment_code !== null ? c.withCode : c.noCode;
    }
    default:
      return item.ok ? '✔' : ctx.t.studio.checklist.refused;
  }
}

/** Where the course's modules and chapters are now: their numbers in the outline, for the history. */
export interface OutlinePlaces {
  chapters: Map<number, number>;
  modules: Map<number, number>;
}

export function outlinePlaces(document: CourseDocumentOut): OutlinePlaces {
  const chapters = new Map<number, number>();
  const modules = new Map<number, number>();
  let n = 0;
  document.modules.forEach((m, i) => {
    if (typeof m.id === 'number') modules.set(m.id, i + 1);
    for (const ch of m.chapters) {
      n += 1;
      if (typeof ch.id === 'number') chapters.set(ch.id, n);
    }
  });
  return { chapters, modules };
}

const ITEM_PATH = /^(chapters|modules|quizzes|pictures)\[(\d+)\](?:\.(\w+))?$/;

/** One recorded change as a sentence: "Bab 3: isi diubah", "Harga anggota diubah". */
export function changeWords(ctx: PageContext, change: { path: string; from?: unknown; to?: unknown }, places: OutlinePlaces): string {
  const h = ctx.t.studioWords.history;
  const { path } = change;
  if (path === '') return h.course;
  if (path === 'outline') return h.outline;
  if (path === 'tree') return h.tree;
  if (path.startsWith('course.')) {
    const key = path.slice('course.'.length);
    const label = settingsLabel(ctx, key) ?? h.courseFields[key] ?? ctx.t.studioWords.otherField;
    return h.setting(label);
  }
  const item = ITEM_PATH.exec(path);
  if (!item) return ctx.t.studioWords.otherField;
  const [, kind, rawId, field] = item;
  const id = Number(rawId);
  const named = nameIn(change.to) ?? nameIn(change.from);
  let what: string;
  if (kind === 'chapters') {
    const at = places.chapters.get(id);
    what = at !== undefined ? h.chapter(at) : named !== null ? h.named(named) : h.goneChapter;
  } else if (kind === 'modules') {
    const at = places.modules.get(id);
    what = at !== undefined ? h.module(at) : named !== null ? h.named(named) : h.goneModule;
  } else {
    const noun = kind === 'pictures' ? h.picture : h.quiz;
    what = named !== null ? `${noun} ${h.named(named)}` : noun;
  }
  if (field === undefined) return h.whole(what);
  return h.changed(what, h.fields[field] ?? ctx.t.studioWords.otherField);
}

function nameIn(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const name = (value as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' ? name : null;
}
