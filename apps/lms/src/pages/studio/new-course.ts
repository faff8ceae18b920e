import { z } from 'zod';
import { AUTHORING_OPERATIONS as op, type TeacherChoice, teachersForNewCourse } from '../../domain/authoring/index.js';
import { ForbiddenError } from '../../errors.js';
import type { PageContext } from '../i18n/index.js';
import { sendPage } from '../send.js';
import type { PageSession } from '../session.js';
import { href, html } from '../view/html.js';
import { page } from '../view/layout.js';
import type { FieldErrors, FormValues } from './forms.js';
import { type App, getPage, postForm, studioPath } from './screen.js';
import { field, flash } from './views.js';

// New course (/dashboard/studio/new): a name and, for an admin or a super_admin, the teacher who
// will own it; created as the import operation creates a course, with nothing in it yet.

const NoParams = z.object({});

/** The teachers this person may create a course for (a student, whom AUTHORS already refuses, none). */
async function teachersFor(app: App, session: PageSession): Promise<TeacherChoice[]> {
  if (session.caller.role === 'student') throw new ForbiddenError('Only teachers and admins create courses');
  return teachersForNewCourse(app.db, session.caller);
}

function newCoursePage(ctx: PageContext, session: PageSession, teachers: TeacherChoice[], values: FormValues, errors: FieldErrors) {
  const s = ctx.t.studio;
  const teacherField =
    session.caller.role === 'teacher'
      ? html``
      : field(s.newCourseTeacher, 'teacherId', values, errors, { choices: teachers.map((t) => [t.id, t.name] as [string, string]) });
  const body = html`<h1>${s.newCourse}</h1>
${flash(Object.keys(errors).length > 0 ? s.fixBelow : null, 'error')}
<form method="post" action="${href('/dashboard/studio/new')}" class="card stack">
${field(s.newCourseName, 'name', values, errors, { required: true })}
${teacherField}
<button type="submit">${s.create}</button>
</form>`;
  return page(ctx, s.newCourse, body, { user: session.user, current: '/dashboard' });
}

export default function newCourseScreen(app: App) {
  return [
    getPage(
      '/studio/new',
      'New course form',
      async ({ reply, session, ctx }) => sendPage(reply, newCoursePage(ctx, session, await teachersFor(app, session), {}, {}), 200),
      NoParams,
    ),
    postForm(
      '/studio/new',
      'Creates a course and opens its studio',
      async ({ reply, session, ctx, actx, form: values, back }) => {
        const teachers = await teachersFor(app, session);
        const name = String(values.name ?? '').trim();
        const teacher = session.caller.role === 'teacher' ? teachers[0] : teachers.find((t) => t.id === values.teacherId);
        const errors: FieldErrors = {};
        const said = ctx.t.formErrors;
        if (name === '' || name.length > 255) errors.name = name === '' ? said.required : said.tooLong(255);
        if (!teacher) errors.teacherId = said.choice;
        if (!teacher || Object.keys(errors).length > 0) return sendPage(reply, newCoursePage(ctx, session, teachers, values, errors), 422);
        // Defaults that can be published (not the API's: by code, and sold at 0, which the
        // checklist refuses): free and open; the teacher who sells it ticks "sold" and sets a
        // price, and it is still bought before it is taken.
        const owner = { name, institutionId: teacher.institutionId, teacherId: teacher.id, enrollmentType: 'open', isPurchasable: false };
        const document = { format: 'lms-course/1', course: owner, modules: [], finalExam: null } as never;
        const { course } = await op.importCourse(app.db, actx, document, 'course.create');
        return back(studioPath(course.id));
      },
      NoParams,
    ),
  ];
}
