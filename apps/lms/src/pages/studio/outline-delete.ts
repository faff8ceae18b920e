import type { QuizOut } from '@lms/contracts';
import { LearnersHoldError, AUTHORING_OPERATIONS as op } from '../../domain/authoring/index.js';
import { NotFoundError } from '../../errors.js';
import type { PageContext } from '../i18n/index.js';
import { href } from '../view/html.js';
import { type App, type Asked, changed, courseIdOfItem, getPage, postForm, studioPath } from './screen.js';

// Deleting a module or a chapter from the outline: a page that says what goes with it (GET
// .../delete), and the form that does it (the deleteModule and deleteChapter operations). One that
// learners' work holds is kept, and the outline says why.

type Kind = 'module' | 'chapter';

const quizLine = (ctx: PageContext, q: QuizOut | null) => (q ? [ctx.t.studio.confirm.quizLine(q.name, q.questions.length)] : []);

export default function outlineDeleteScreen(app: App) {
  /** What deleting the module or chapter `id` takes with it: the question asked and the lines listed. */
  const doomed = async (kind: Kind, { ctx, actx, id }: Asked) => {
    const c = ctx.t.studio.confirm;
    const tree = await op.exportCourse(app.db, actx, await courseIdOfItem(app, actx, kind, id));
    if (kind === 'module') {
      const m = tree.document.modules.find((x) => x.id === id);
      if (!m) throw new NotFoundError('Module not found');
      const lines = [...quizLine(ctx, m.quiz), ...m.chapters.flatMap((ch) => [c.chapterLine(ch.name), ...quizLine(ctx, ch.quiz)])];
      return { course: tree.course, question: c.module(m.name), lines };
    }
    const ch = tree.document.modules.flatMap((m) => m.chapters).find((x) => x.id === id);
    if (!ch) throw new NotFoundError('Chapter not found');
    return { course: tree.course, question: c.chapter(ch.name), lines: quizLine(ctx, ch.quiz) };
  };

  const confirm = (kind: Kind) =>
    getPage(`/studio/${kind}s/:id/delete`, `Course studio: confirm deleting a ${kind}`, async (asked) => {
      const { course, question, lines } = await doomed(kind, asked);
      const action = href(`/dashboard/studio/${kind}s`, asked.id, 'delete');
      const cancel = href('/dashboard/studio/courses', course.id, 'outline');
      return asked.confirmDelete(course, 'outline', question, { lines }, action, cancel);
    });

  const remove = (kind: Kind) =>
    postForm(`/studio/${kind}s/:id/delete`, `Deletes a ${kind}`, async ({ actx, id, back }) => {
      const courseId = await courseIdOfItem(app, actx, kind, id);
      try {
        await (kind === 'module' ? op.deleteModule : op.deleteChapter)(app.db, actx, id);
      } catch (err) {
        if (err instanceof LearnersHoldError) return back(studioPath(courseId, '/outline?held=1'));
        throw err;
      }
      await changed(app, courseId);
      return back(studioPath(courseId, '/outline?saved=1'));
    });

  return [confirm('module'), confirm('chapter'), remove('module'), remove('chapter')];
}
