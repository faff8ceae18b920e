import { AUTHORING_OPERATIONS as op } from '../../domain/authoring/index.js';
import { href, html } from '../view/html.js';
import { duplicateForm } from './duplicate.js';
import { type App, getPage, postForm, studioPath } from './screen.js';
import { checklistSection, flash } from './views.js';

// The course's overview (/dashboard/studio/courses/:id): the publish checklist, and the forms that
// publish and unpublish the course (the publicationChecklist, publishCourse and unpublishCourse
// operations). A publish the checklist refuses comes back here as a 409 naming what is missing.

export default function publishScreen(app: App) {
  return [
    getPage('/studio/courses/:id', 'Course studio: overview and publish checklist', async ({ ctx, actx, id, query, show }) => {
      const { course, checklist, quizzes } = await op.publicationChecklist(app.db, actx, id);
      const s = ctx.t.studio;
      const note =
        query.published === '1'
          ? flash(s.checklist.publishedNow)
          : query.published === '0'
            ? flash(s.checklist.refused, 'error')
            : query.unpublished === '1'
              ? flash(s.checklist.unpublishedNow)
              : false;
      const body = html`${note}
${checklistSection(ctx, course, checklist, quizzes)}
<p><a href="${href('/dashboard/studio/courses', course.id, 'settings')}">${s.tabs.settings}</a> · <a href="${href('/dashboard/studio/courses', course.id, 'outline')}">${s.tabs.outline}</a></p>
${duplicateForm(ctx, course.id)}`;
      return show(course, 'overview', s.title(course.name), body, query.published === '0' ? 409 : 200);
    }),
    postForm('/studio/courses/:id/publish', 'Publishes the course', async ({ actx, id, back }) => {
      const { published } = await op.publishCourse(app.db, actx, id);
      if (published) app.catalogChanged({ published: true });
      return back(studioPath(id, `?published=${published ? 1 : 0}#checklist`));
    }),
    postForm('/studio/courses/:id/unpublish', 'Unpublishes the course', async ({ actx, id, back }) => {
      await op.unpublishCourse(app.db, actx, id);
      app.catalogChanged({ published: true });
      return back(studioPath(id, '?unpublished=1'));
    }),
  ];
}
