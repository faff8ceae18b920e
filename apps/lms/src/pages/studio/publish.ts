import { AUTHORING_OPERATIONS as op } from '../../domain/authoring/index.js';
import { href, html } from '../view/html.js';
import { type App, back, getPage, idOf, postForm, queryOf, show, studioPath, who } from './screen.js';
import { checklistSection, flash } from './views.js';

// The course's overview (/dashboard/studio/courses/:id): the publish checklist, and the forms that
// publish and unpublish the course (the publicationChecklist, publishCourse and unpublishCourse
// operations). A publish the checklist refuses comes back here as a 409 naming what is missing.

export default function publishScreen(app: App) {
  return [
    getPage('/studio/courses/:id', 'Course studio: overview and publish checklist', async (request, reply) => {
      const { session, ctx, actx } = await who(app, request);
      const { course, checklist } = await op.publicationChecklist(app.db, actx, idOf(request));
      const s = ctx.t.studio;
      const q = queryOf(request);
      const note =
        q.published === '1'
          ? flash(s.checklist.publishedNow)
          : q.published === '0'
            ? flash(s.checklist.refused, 'error')
            : q.unpublished === '1'
              ? flash(s.checklist.unpublishedNow)
              : false;
      const body = html`${note}
${checklistSection(ctx, course, checklist)}
<p><a href="${href('/dashboard/studio/courses', course.id, 'settings')}">${s.tabs.settings}</a> · <a href="${href('/dashboard/studio/courses', course.id, 'outline')}">${s.tabs.outline}</a></p>`;
      return show(reply, ctx, session, course, 'overview', s.title(course.name), body, q.published === '0' ? 409 : 200);
    }),
    postForm('/studio/courses/:id/publish', 'Publishes the course', async (request, reply) => {
      const { actx } = await who(app, request);
      const { published } = await op.publishCourse(app.db, actx, idOf(request));
      if (published) app.catalogChanged({ published: true });
      return back(reply, studioPath(idOf(request), `?published=${published ? 1 : 0}#checklist`));
    }),
    postForm('/studio/courses/:id/unpublish', 'Unpublishes the course', async (request, reply) => {
      const { actx } = await who(app, request);
      await op.unpublishCourse(app.db, actx, idOf(request));
      app.catalogChanged({ published: true });
      return back(reply, studioPath(idOf(request), '?unpublished=1'));
    }),
  ];
}
