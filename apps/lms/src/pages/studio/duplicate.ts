import { CourseDocument } from '@lms/contracts';
import { AUTHORING_OPERATIONS as op } from '../../domain/authoring/index.js';
import { type Html, href, html } from '../view/html.js';
import type { PageContext } from '../i18n/index.js';
import { type App, postForm, studioPath } from './screen.js';

// "Duplicate this course" (POST /dashboard/studio/courses/:id/duplicate): the course document
// API's own domain functions, exportCourse then importCourse, for those who may write the course.
// The copy is a draft of the same teacher and institution, named "… (copy)", with the same
// outline, chapters, quizzes and settings; not what belongs to the original only: its event code
// (a course's own), its credit and accreditations (an admin records them), its learners.

/** The overview's form (publish.ts shows it under the checklist). */
export function duplicateForm(ctx: PageContext, courseId: number): Html {
  const e = ctx.t.studio.editor;
  return html`<form method="post" action="${href('/dashboard/studio/courses', courseId, 'duplicate')}" class="card inline">
<button type="submit" class="secondary">${e.duplicate}</button> <small class="muted">${e.duplicateHint}</small></form>`;
}

export default function duplicateScreen(app: App) {
  return [
    postForm('/studio/courses/:id/duplicate', 'Duplicates a course as a new draft', async ({ ctx, actx, id, back }) => {
      const { document } = await op.exportCourse(app.db, actx, id);
      const copy = CourseDocument.parse({
        ...document,
        course: {
          ...document.course,
          name: ctx.t.studio.editor.copyName(document.course.name).slice(0, 255),
          eventCode: null,
          nilaiKum: null,
        },
        accreditations: [],
      });
      const { course } = await op.importCourse(app.db, actx, copy, 'course.create');
      return back(studioPath(course.id));
    }),
  ];
}
