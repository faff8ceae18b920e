import { AUTHORING_OPERATIONS as op } from '../../domain/authoring/index.js';
import { BadRequestError } from '../../errors.js';
import type { PageContext } from '../i18n/index.js';
import { attr, type Html, href, html } from '../view/html.js';
import { type App, type Asked, changed, courseIdOfItem, courseOf, getPage, postForm, studioPath } from './screen.js';
import { flash } from './views.js';

// The course's outline (/dashboard/studio/courses/:id/outline): its modules and chapters, with
// forms that add and rename them (createModule, updateModule, createChapter) and move one a place
// up or down (reorderOutline). Deleting one is ./outline-delete.ts.

type Tree = Awaited<ReturnType<typeof op.exportCourse>>;
export type OutlineKind = 'module' | 'chapter';
type Problem = { form: string; message: string; value: string };

function outlinePage(ctx: PageContext, tree: Tree, note: Html | false, problem?: Problem) {
  const o = ctx.t.studio.outline;
  const course = tree.course;
  const modules = tree.document.modules;
  const e = ctx.t.studio.editor;
  // Up/Down: forms that work without JavaScript; the studio's script sends them without a reload
  // and drags items (client/studio-editor.ts: `form.move`, an item's `data-move`).
  const small = (action: ReturnType<typeof href>, label: string, ariaLabel: string, direction: 'up' | 'down') =>
    html`<form method="post" action="${action}" class="inline move"><input type="hidden" name="direction" value="${direction}"><button type="submit" class="secondary" aria-label="${ariaLabel}">${label}</button></form>`;
  const moveButtons = (kind: 'modules' | 'chapters', id: number, name: string, at: number, count: number) => {
    const action = href(`/dashboard/studio/${kind}`, id, 'move');
    return html`${at > 0 && small(action, o.up, e.moveUp(name), 'up')}
${at < count - 1 && small(action, o.down, e.moveDown(name), 'down')}`;
  };
  const moveUrl = (kind: 'modules' | 'chapters', id: number) => href(`/dashboard/studio/${kind}`, id, 'move');
  const errorFor = (formName: string) =>
    problem?.form === formName && html`<strong class="field-error" role="alert" id="e-${formName}">${problem.message}</strong>`;
  /** The input of a form with a problem points at it (and is marked invalid). */
  const invalidFor = (formName: string) => attr('aria-invalid', problem?.form === formName && 'true');
  const describedFor = (formName: string) => attr('aria-describedby', problem?.form === formName && `e-${formName}`);
  const valueFor = (formName: string) => (problem?.form === formName ? problem.value : '');
  const items = modules.map((m, i) => {
    const chapters = m.chapters.map(
      (
        ch,
        j,
      ) => html`<li data-move="${moveUrl('chapters', ch.id as number)}"><a href="${href('/dashboard/studio/chapters', ch.id as number)}">${ch.name}</a>
${moveButtons('chapters', ch.id as number, ch.name, j, m.chapters.length)}
<a href="${href('/dashboard/studio/quizzes/chapter', ch.id as number)}">${o.quiz}${ch.quiz ? ` (${ch.quiz.questions.length})` : ''}</a>
<a href="${href('/dashboard/studio/chapters', ch.id as number, 'delete')}" class="danger-link">${o.delete}</a></li>`,
    );
    return html`<li class="card" id="module-${m.id as number}" data-move="${moveUrl('modules', m.id as number)}"><h3>${m.name}</h3>
<form method="post" action="${href('/dashboard/studio/modules', m.id as number, 'rename')}" class="inline">
<label>${o.moduleName} <input name="name" value="${valueFor(`rename-${m.id}`) || m.name}"${invalidFor(`rename-${m.id}`)}${describedFor(`rename-${m.id}`)} required></label> <button type="submit" class="secondary">${o.rename}</button> ${errorFor(`rename-${m.id}`)}
</form>
${moveButtons('modules', m.id as number, m.name, i, modules.length)}
<a href="${href('/dashboard/studio/quizzes/module', m.id as number)}">${o.moduleQuiz}${m.quiz ? ` (${m.quiz.questions.length})` : ''}</a>
<a href="${href('/dashboard/studio/modules', m.id as number, 'delete')}" class="danger-link">${o.delete}</a>
${m.chapters.length === 0 ? html`<p class="muted">${o.noChapters}</p>` : html`<ol class="chapters">${chapters}</ol>`}
<form method="post" action="${href('/dashboard/studio/modules', m.id as number, 'chapters')}" class="inline">
<label>${o.chapterName} <input name="name" value="${valueFor(`chapter-${m.id}`)}"${invalidFor(`chapter-${m.id}`)}${describedFor(`chapter-${m.id}`)} required></label> <button type="submit">${o.addChapter}</button> ${errorFor(`chapter-${m.id}`)}
</form></li>`;
  });
  return html`${note}
<h2>${o.modules}</h2>
${modules.length === 0 ? html`<p class="muted">${o.noModules}</p>` : html`<p class="muted">${e.dragHint}</p><ol class="modules">${items}</ol>`}
<form method="post" action="${href('/dashboard/studio/courses', course.id, 'modules')}" class="card inline">
<label>${o.moduleName} <input name="name" value="${valueFor('module')}"${invalidFor('module')}${describedFor('module')} required></label> <button type="submit">${o.addModule}</button> ${errorFor('module')}
</form>
<p><a href="${href('/dashboard/studio/quizzes/final', course.id)}">${o.finalExam}${tree.document.finalExam ? ` (${tree.document.finalExam.questions.length})` : ''}</a></p>`;
}

export default function outlineScreen(app: App) {
  /** A name typed in an outline form; an empty or too long one re-renders the outline with the problem (422). */
  const saveName = async (asked: Asked, courseId: number, formName: string, save: (name: string) => Promise<unknown>) => {
    const { ctx, actx, form, show, back } = asked;
    const name = String(form.name ?? '').trim();
    const said = ctx.t.formErrors;
    let message: string | null = name === '' ? said.required : name.length > 255 ? said.tooLong(255) : null;
    if (message === null) {
      try {
        await save(name);
        await changed(app, courseId);
        return back(studioPath(courseId, '/outline?saved=1'));
      } catch (err) {
        if (!(err instanceof BadRequestError)) throw err;
        message = said.invalid;
      }
    }
    const tree = await op.exportCourse(app.db, actx, courseId);
    const body = outlinePage(ctx, tree, flash(ctx.t.studio.fixBelow, 'error'), { form: formName, message, value: name });
    return show(tree.course, 'outline', ctx.t.studio.tabs.outline, body, 422);
  };

  /** Moves a module or a chapter one place up or down: the whole outline, reordered, through reorderOutline. */
  const move = async ({ actx, id, form, back }: Asked, kind: OutlineKind) => {
    const courseId = await courseIdOfItem(app, actx, kind, id);
    const { document } = await op.exportCourse(app.db, actx, courseId);
    const outline = document.modules.map((m) => ({ id: m.id as number, chapterIds: m.chapters.map((ch) => ch.id as number) }));
    const step = form.direction === 'up' ? -1 : 1;
    const swap = <T>(list: T[], at: number) => {
      const to = at + step;
      if (at < 0 || to < 0 || to >= list.length) return;
      [list[at], list[to]] = [list[to], list[at]];
    };
    if (kind === 'module')
      swap(
        outline,
        outline.findIndex((m) => m.id === id),
      );
    else for (const m of outline) swap(m.chapterIds, m.chapterIds.indexOf(id));
    await op.reorderOutline(app.db, actx, courseId, { modules: outline });
    await changed(app, courseId);
    return back(studioPath(courseId, '/outline'));
  };

  return [
    getPage('/studio/courses/:id/outline', 'Course studio: outline', async ({ ctx, actx, id, query, show }) => {
      const tree = await op.exportCourse(app.db, actx, id);
      const s = ctx.t.studio;
      const note = query.held === '1' ? flash(s.outline.learnersHold, 'error') : query.saved === '1' ? flash(s.saved) : false;
      return show(tree.course, 'outline', s.tabs.outline, outlinePage(ctx, tree, note));
    }),
    postForm('/studio/courses/:id/modules', 'Adds a module', async (asked) => {
      const courseId = (await courseOf(app, asked.actx, asked.id)).id;
      return saveName(asked, courseId, 'module', (name) => op.createModule(app.db, asked.actx, courseId, { name, description: '' }));
    }),
    postForm('/studio/modules/:id/rename', 'Renames a module', async (asked) => {
      const { actx, id } = asked;
      const courseId = await courseIdOfItem(app, actx, 'module', id);
      return saveName(asked, courseId, `rename-${id}`, (name) => op.updateModule(app.db, actx, id, { name }));
    }),
    postForm('/studio/modules/:id/chapters', 'Adds a chapter to a module', async (asked) => {
      const { actx, id } = asked;
      const courseId = await courseIdOfItem(app, actx, 'module', id);
      return saveName(asked, courseId, `chapter-${id}`, (name) => op.createChapter(app.db, actx, id, { name, content: '' }));
    }),
    ...(['module', 'chapter'] as const).map((kind) =>
      postForm(`/studio/${kind}s/:id/move`, `Moves a ${kind} up or down`, (asked) => move(asked, kind)),
    ),
  ];
}
