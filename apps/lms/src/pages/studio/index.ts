import multipart from '@fastify/multipart';
import { AUTHORING_LIMITS, HtmlPage, MAX_ID, QUESTION_KINDS, type QuizOut, RedirectResponse } from '@lms/contracts';
import { sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AUTHOR_ROLES,
  type AuthoringContext,
  type CourseRow,
  createChapter,
  createModule,
  deleteChapter,
  deleteModule,
  deleteQuiz,
  exportCourse,
  findAuthoredCourse,
  importNewCourse,
  LearnersHoldError,
  publishCourse,
  putQuiz,
  type QuizPlace,
  quizVersion,
  readHistory,
  readPublication,
  reorderOutline,
  StaleVersionError,
  unpublishCourse,
  updateChapter,
  updateCourseFields,
  updateModule,
} from '../../domain/authoring/index.js';
import {
  deletePicture,
  findCoursePicture,
  listPictures,
  PICTURE_LIMITS,
  PictureNameError,
  PictureTooLargeError,
  picturePath,
  postgresPictureStore,
  UnsupportedPictureError,
  uploadPicture,
} from '../../domain/media/pictures.js';
import { BadRequestError, ForbiddenError, NotFoundError, PaymentRequiredError } from '../../errors.js';
import type { RouteAuth } from '../../plugins/auth.js';
import { CrossSiteFormError } from '../../plugins/csrf.js';
import { acceptFormBodies } from '../form-body.js';
import { type PageContext, pageContext } from '../i18n/index.js';
import { MARKDOWN_PAGE_CSP, sendPage } from '../send.js';
import { type PageSession, pageSession } from '../session.js';
import { type Html, href, html, join } from '../view/html.js';
import { page } from '../view/layout.js';
import { MARKDOWN_MAX_NESTING, markdownFragment } from '../view/markdown.js';
import {
  DETAIL_SECTIONS,
  type FieldErrors,
  type FormValues,
  chapterContentProblem,
  quizBody,
  quizValues,
  SETTINGS_GROUPS,
  settingsBody,
  settingsValues,
  videoEmbedUrl,
  videoMarkdown,
} from './forms.js';
import { checklistSection, field, flash, type StudioTab, studioHeader } from './views.js';

/**
 * The course studio, under /dashboard/studio: plain server-rendered forms (no JavaScript needed)
 * over the authoring domain (domain/authoring), the same functions and the same rule on who may
 * write (mayAuthorSql) as the authoring API. Every form posts with the form CSRF rule (`csrf:
 * 'form'`). A save that fails keeps what was typed (422, the problem next to its field); a save
 * made on an older version than the stored one is refused (409) showing both. See docs/authoring.md.
 */

/** A route schema without its `body` key (absent, not undefined). */
function withoutBody<S extends { body?: unknown }>(schema: S): Omit<S, 'body'> {
  const { body: _body, ...rest } = schema;
  return rest;
}

const Id = z.coerce.number().int().min(1).max(MAX_ID);
const IdParams = z.object({ id: Id });
const Form = z.record(z.string(), z.unknown()).nullish();
const QUIZ_SCOPES = ['chapter', 'module', 'final'] as const;

const pageSchema = (summary: string, params: z.ZodType = IdParams) => ({
  hide: true,
  tags: ['pages'],
  summary,
  params,
  response: { 200: HtmlPage, 302: RedirectResponse },
});
const formSchema = (summary: string, params: z.ZodType = IdParams) => ({
  hide: true,
  tags: ['pages'],
  summary,
  params,
  body: Form,
  response: { 200: HtmlPage, 303: RedirectResponse, 409: HtmlPage, 413: HtmlPage, 422: HtmlPage },
});

/**
 * The largest chapter form: the content limit in characters, each at most 9 bytes once
 * percent-encoded (a UTF-8 character of three bytes; a four-byte one is two UTF-16 characters),
 * and room for the other fields.
 */
const CHAPTER_FORM_BODY_LIMIT = AUTHORING_LIMITS.chapterContentChars * 9 + 64 * 1024;

/**
 * Who reaches the studio: a session of a role that may author (domain/authoring, AUTHOR_ROLES),
 * refused before a form is read; which courses each may write is the domain's rule. Every form
 * post counts against the author's budget per minute (plugins/rate-limit.ts).
 */
const AUTHORS: RouteAuth = { accepts: ['session'], roles: AUTHOR_ROLES };

const studio: FastifyPluginAsyncZod = async (app) => {
  acceptFormBodies(app, app.config.AUTHORING_BODY_LIMIT_BYTES);
  const uploadLimit = app.config.STUDIO_UPLOAD_LIMIT_BYTES;
  await app.register(multipart, { limits: { fileSize: uploadLimit, files: 1, fields: 10, parts: 12 } });
  const store = postgresPictureStore(app.db);
  const mb = (ctx: PageContext) => ctx.f.number(Math.round((uploadLimit / (1024 * 1024)) * 10) / 10);

  app.setErrorHandler(async (err, request) => {
    const words = pageContext(app, request).t.enrol.forbidden;
    if (err instanceof CrossSiteFormError) throw new ForbiddenError(words.crossSite);
    throw err;
  });

  const who = async (request: FastifyRequest) => {
    const session = await pageSession(app, request);
    const ctx = pageContext(app, request);
    const actx: AuthoringContext = {
      author: { kind: 'session', userId: session.caller.userId, role: session.caller.role },
      now: app.clock(),
      requestId: request.id,
    };
    return { session, ctx, actx };
  };
  const back = (reply: FastifyReply, path: string) => reply.header('cache-control', 'no-store').redirect(path, 303);
  const studioPath = (courseId: number, tail = '') => `/dashboard/studio/courses/${courseId}${tail}`;
  const idOf = (request: FastifyRequest) => (request.params as { id: number }).id;
  const form = (request: FastifyRequest) => (request.body ?? {}) as FormValues;
  // A write to a published course shows in the API-key catalog (plugins/catalog-cache.ts); a draft's never does.
  const changed = async (courseId: number) => {
    const { rows } = await app.db.execute(sql`select is_published from courses where id = ${courseId}`);
    app.catalogChanged({ published: (rows[0] as { is_published?: boolean } | undefined)?.is_published === true });
  };
  const show = (
    reply: FastifyReply,
    ctx: PageContext,
    session: PageSession,
    course: CourseRow,
    tab: StudioTab | null,
    title: string,
    body: Html,
    status = 200,
    csp?: string,
  ) =>
    sendPage(
      reply,
      page(ctx, title, html`${studioHeader(ctx, course, tab)}\n${body}`, { user: session.user, current: '/dashboard' }),
      status,
      csp,
    );

  /**
   * The confirmation of a delete (GET .../delete): what will be deleted and what goes with it, a
   * POST form to the same URL that does it (under the form CSRF rule), and a way back. No JavaScript.
   */
  const confirmDelete = (
    reply: FastifyReply,
    ctx: PageContext,
    session: PageSession,
    course: CourseRow,
    tab: StudioTab,
    question: string,
    details: { lines: string[]; notes?: (string | false)[]; picture?: string },
    action: ReturnType<typeof href>,
    cancel: ReturnType<typeof href>,
  ) => {
    const c = ctx.t.studio.confirm;
    const notes = (details.notes ?? []).filter((n): n is string => Boolean(n));
    return show(
      reply,
      ctx,
      session,
      course,
      tab,
      question,
      html`<section class="card confirm-delete" aria-labelledby="confirm-title"><h2 id="confirm-title">${question}</h2>
${details.picture && html`<p><img src="${href(details.picture)}" alt="" width="160"></p>`}
${details.lines.length === 0 ? html`<p class="muted">${c.nothingElse}</p>` : html`<p>${c.goesWith}</p><ul class="deleted-with">${details.lines.map((l) => html`<li>${l}</li>`)}</ul>`}
${notes.map((n) => html`<p><strong>${n}</strong></p>`)}
<p class="muted">${c.cannotUndo}</p>
<form method="post" action="${action}" class="inline"><button type="submit" class="danger">${c.yes}</button></form>
<a href="${cancel}">${c.cancel}</a></section>`,
    );
  };

  // ------------------------------------------------------------------ new course
  app.get('/studio/new', { config: { auth: AUTHORS }, schema: pageSchema('New course form', z.object({})) }, async (request, reply) => {
    const { session, ctx } = await who(request);
    return sendPage(reply, newCoursePage(ctx, session, await teachersFor(session), {}, {}), 200);
  });

  const teachersFor = async (session: PageSession): Promise<{ id: string; name: string; institutionId: number }[]> => {
    const c = session.caller;
    if (c.role === 'student') throw new ForbiddenError(pageContextWords(session));
    const where =
      c.role === 'teacher'
        ? sql`u.id = ${c.userId}`
        : c.role === 'admin'
          ? sql`u.institution_id = (select institution_id from users where id = ${c.userId} and role = 'admin' and is_active)`
          : sql`true`;
    const { rows } = await app.db.execute(sql`
      select u.id, u.name, u.institution_id as "institutionId" from users u
      where u.role = 'teacher' and u.is_active and u.institution_id is not null and ${where} order by u.name limit 500`);
    return rows as { id: string; name: string; institutionId: number }[];
  };
  const pageContextWords = (_s: PageSession) => 'Only teachers and admins create courses';

  const newCoursePage = (
    ctx: PageContext,
    session: PageSession,
    teachers: { id: string; name: string }[],
    values: FormValues,
    errors: FieldErrors,
  ) => {
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
  };

  app.post(
    '/studio/new',
    {
      config: { auth: AUTHORS, csrf: 'form', authoringLimited: true },
      schema: formSchema('Creates a course and opens its studio', z.object({})),
    },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const teachers = await teachersFor(session);
      const values = form(request);
      const name = String(values.name ?? '').trim();
      const teacher = session.caller.role === 'teacher' ? teachers[0] : teachers.find((t) => t.id === values.teacherId);
      const errors: FieldErrors = {};
      if (name === '' || name.length > 255) errors.name = ctx.t.studio.fixBelow;
      if (!teacher) errors.teacherId = ctx.t.studio.fixBelow;
      if (!teacher || Object.keys(errors).length > 0) return sendPage(reply, newCoursePage(ctx, session, teachers, values, errors), 422);
      const { course } = await importNewCourse(
        app.db,
        actx,
        {
          format: 'lms-course/1',
          course: { name, institutionId: teacher.institutionId, teacherId: teacher.id },
          modules: [],
          finalExam: null,
        } as never,
        'course.create',
      );
      return back(reply, studioPath(course.id));
    },
  );

  // ------------------------------------------------------------------ overview + checklist
  app.get(
    '/studio/courses/:id',
    { config: { auth: AUTHORS }, schema: pageSchema('Course studio: overview and publish checklist') },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const { course, checklist } = await readPublication(app.db, actx, idOf(request));
      const s = ctx.t.studio;
      const q = request.query as Record<string, string | undefined>;
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
    },
  );

  app.post(
    '/studio/courses/:id/publish',
    { config: { auth: AUTHORS, csrf: 'form', authoringLimited: true }, schema: formSchema('Publishes the course') },
    async (request, reply) => {
      const { actx } = await who(request);
      const { published } = await publishCourse(app.db, actx, idOf(request));
      if (published) app.catalogChanged({ published: true });
      return back(reply, studioPath(idOf(request), `?published=${published ? 1 : 0}#checklist`));
    },
  );
  app.post(
    '/studio/courses/:id/unpublish',
    { config: { auth: AUTHORS, csrf: 'form', authoringLimited: true }, schema: formSchema('Unpublishes the course') },
    async (request, reply) => {
      const { actx } = await who(request);
      await unpublishCourse(app.db, actx, idOf(request));
      app.catalogChanged({ published: true });
      return back(reply, studioPath(idOf(request), '?unpublished=1'));
    },
  );

  // ------------------------------------------------------------------ settings
  const settingsPage = (
    ctx: PageContext,
    course: CourseRow,
    values: FormValues,
    errors: FieldErrors,
    note: Html | false,
    compare: Html | false = false,
  ) => {
    const s = ctx.t.studio;
    const fl = s.fields;
    const labels: Record<string, string> = {
      ...fl,
      admissions: 'admissions',
      academics: 'academics',
      tuitionAndFinancing: 'tuitionAndFinancing',
      careers: 'careers',
      studentExperience: 'studentExperience',
    };
    const one = (name: string): Html => {
      switch (name) {
        case 'description':
          return field(fl.description, name, values, errors, { textarea: 6 });
        case 'type':
          return field(fl.type, name, values, errors, {
            choices: [
              ['self_paced', fl.typeSelfPaced],
              ['scheduled', fl.typeScheduled],
            ],
          });
        case 'enrollmentType':
          return field(fl.enrollmentType, name, values, errors, {
            choices: [
              ['open', fl.enrollOpen],
              ['code', fl.enrollCode],
              ['approval', fl.enrollApproval],
            ],
          });
        case 'startDate':
        case 'endDate':
          return field(labels[name], name, values, errors, { type: 'date' });
        case 'isPurchasable':
        case 'previewMode':
          return field(labels[name], name, values, errors, { type: 'checkbox' });
        case 'name':
          return field(fl.name, name, values, errors, { required: true });
        default:
          return (DETAIL_SECTIONS as readonly string[]).includes(name)
            ? field(labels[name], name, values, errors, { textarea: 3, hint: fl.sectionHint })
            : field(labels[name], name, values, errors);
      }
    };
    const groups = (Object.keys(SETTINGS_GROUPS) as (keyof typeof SETTINGS_GROUPS)[]).map(
      (g) => html`<fieldset id="${g}" class="card"><legend>${s.groups[g]}</legend>${SETTINGS_GROUPS[g].map(one)}</fieldset>`,
    );
    return html`${note}${compare}
<form method="post" action="${href('/dashboard/studio/courses', course.id, 'settings')}" class="stack">
<input type="hidden" name="version" value="${values.version ?? String(course.version)}">
${groups}
<button type="submit">${s.save}</button>
</form>`;
  };

  app.get(
    '/studio/courses/:id/settings',
    { config: { auth: AUTHORS }, schema: pageSchema('Course studio: settings') },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const course = await findAuthoredCourse(app.db, actx.author, { course: idOf(request) });
      const saved = (request.query as Record<string, string>).saved === '1' && flash(ctx.t.studio.saved);
      return show(
        reply,
        ctx,
        session,
        course,
        'settings',
        ctx.t.studio.tabs.settings,
        settingsPage(ctx, course, settingsValues(course), {}, saved),
      );
    },
  );

  app.post(
    '/studio/courses/:id/settings',
    { config: { auth: AUTHORS, csrf: 'form', authoringLimited: true }, schema: formSchema('Saves the settings') },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const course = await findAuthoredCourse(app.db, actx.author, { course: idOf(request) });
      const typed = form(request);
      const { body, errors } = settingsBody(typed);
      const s = ctx.t.studio;
      if (!body) {
        return show(
          reply,
          ctx,
          session,
          course,
          'settings',
          s.tabs.settings,
          settingsPage(ctx, course, typed, errors, flash(s.fixBelow, 'error')),
          422,
        );
      }
      try {
        await updateCourseFields(app.db, actx, course.id, body, versionOf(typed));
      } catch (err) {
        if (err instanceof StaleVersionError) {
          const stored = settingsValues(err.stored as CourseRow);
          const compare = staleCompare(
            ctx,
            stored,
            typed,
            Object.keys(stored).filter((k) => k !== 'version'),
          );
          return show(reply, ctx, session, course, 'settings', s.tabs.settings, settingsPage(ctx, course, stored, {}, false, compare), 409);
        }
        if (err instanceof BadRequestError) {
          const errs = problemsOf(err);
          return show(
            reply,
            ctx,
            session,
            course,
            'settings',
            s.tabs.settings,
            settingsPage(ctx, course, typed, errs, flash(s.fixBelow, 'error')),
            422,
          );
        }
        throw err;
      }
      await changed(course.id);
      return back(reply, studioPath(course.id, '/settings?saved=1'));
    },
  );

  // ------------------------------------------------------------------ outline
  type Tree = Awaited<ReturnType<typeof exportCourse>>;
  const outlinePage = (ctx: PageContext, tree: Tree, note: Html | false, problem?: { form: string; message: string; value: string }) => {
    const s = ctx.t.studio;
    const o = s.outline;
    const course = tree.course;
    const modules = tree.document.modules;
    const c = (path: string) => href('/dashboard/studio/courses', course.id, path);
    const small = (action: ReturnType<typeof href>, label: string, extra: Html | false = false) =>
      html`<form method="post" action="${action}" class="inline">${extra}<button type="submit" class="secondary">${label}</button></form>`;
    const errorFor = (formName: string) =>
      problem?.form === formName && html`<strong class="field-error" role="alert">${problem.message}</strong>`;
    const valueFor = (formName: string) => (problem?.form === formName ? problem.value : '');
    const items = modules.map((m, i) => {
      const chapters = m.chapters.map(
        (ch, j) => html`<li><a href="${href('/dashboard/studio/chapters', ch.id as number)}">${ch.name}</a>
${j > 0 && small(href('/dashboard/studio/chapters', ch.id as number, 'move'), o.up, html`<input type="hidden" name="direction" value="up">`)}
${j < m.chapters.length - 1 && small(href('/dashboard/studio/chapters', ch.id as number, 'move'), o.down, html`<input type="hidden" name="direction" value="down">`)}
<a href="${href('/dashboard/studio/quizzes/chapter', ch.id as number)}">${o.quiz}${ch.quiz ? ` (${ch.quiz.questions.length})` : ''}</a>
<a href="${href('/dashboard/studio/chapters', ch.id as number, 'delete')}" class="danger-link">${o.delete}</a></li>`,
      );
      return html`<li class="card" id="module-${m.id as number}"><h3>${m.name}</h3>
<form method="post" action="${href('/dashboard/studio/modules', m.id as number, 'rename')}" class="inline">
<label>${o.moduleName} <input name="name" value="${valueFor(`rename-${m.id}`) || m.name}" required></label> <button type="submit" class="secondary">${o.rename}</button> ${errorFor(`rename-${m.id}`)}
</form>
${i > 0 && small(href('/dashboard/studio/modules', m.id as number, 'move'), o.up, html`<input type="hidden" name="direction" value="up">`)}
${i < modules.length - 1 && small(href('/dashboard/studio/modules', m.id as number, 'move'), o.down, html`<input type="hidden" name="direction" value="down">`)}
<a href="${href('/dashboard/studio/quizzes/module', m.id as number)}">${o.moduleQuiz}${m.quiz ? ` (${m.quiz.questions.length})` : ''}</a>
<a href="${href('/dashboard/studio/modules', m.id as number, 'delete')}" class="danger-link">${o.delete}</a>
${m.chapters.length === 0 ? html`<p class="muted">${o.noChapters}</p>` : html`<ol class="chapters">${chapters}</ol>`}
<form method="post" action="${href('/dashboard/studio/modules', m.id as number, 'chapters')}" class="inline">
<label>${o.chapterName} <input name="name" value="${valueFor(`chapter-${m.id}`)}" required></label> <button type="submit">${o.addChapter}</button> ${errorFor(`chapter-${m.id}`)}
</form></li>`;
    });
    return html`${note}
<h2>${o.modules}</h2>
${modules.length === 0 ? html`<p class="muted">${o.noModules}</p>` : html`<ol class="modules">${items}</ol>`}
<form method="post" action="${c('modules')}" class="card inline">
<label>${o.moduleName} <input name="name" value="${valueFor('module')}" required></label> <button type="submit">${o.addModule}</button> ${errorFor('module')}
</form>
<p><a href="${href('/dashboard/studio/quizzes/final', course.id)}">${o.finalExam}${tree.document.finalExam ? ` (${tree.document.finalExam.questions.length})` : ''}</a></p>`;
  };
  const outlineFlash = (ctx: PageContext, q: Record<string, string | undefined>) =>
    q.held === '1' ? flash(ctx.t.studio.outline.learnersHold, 'error') : q.saved === '1' ? flash(ctx.t.studio.saved) : false;

  app.get(
    '/studio/courses/:id/outline',
    { config: { auth: AUTHORS }, schema: pageSchema('Course studio: outline') },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const tree = await exportCourse(app.db, actx, idOf(request));
      const q = request.query as Record<string, string | undefined>;
      return show(reply, ctx, session, tree.course, 'outline', ctx.t.studio.tabs.outline, outlinePage(ctx, tree, outlineFlash(ctx, q)));
    },
  );

  /** A name typed in an outline form; an empty or too long one re-renders the outline with the problem (422). */
  const outlineName = async (
    request: FastifyRequest,
    reply: FastifyReply,
    courseId: number,
    formName: string,
    save: (name: string) => Promise<unknown>,
  ) => {
    const { session, ctx, actx } = await who(request);
    const name = String(form(request).name ?? '').trim();
    let message: string | null = name === '' || name.length > 255 ? ctx.t.studio.fixBelow : null;
    if (message === null) {
      try {
        await save(name);
        await changed(courseId);
        return back(reply, studioPath(courseId, '/outline?saved=1'));
      } catch (err) {
        if (!(err instanceof BadRequestError)) throw err;
        message = err.message;
      }
    }
    const tree = await exportCourse(app.db, actx, courseId);
    return show(
      reply,
      ctx,
      session,
      tree.course,
      'outline',
      ctx.t.studio.tabs.outline,
      outlinePage(ctx, tree, flash(ctx.t.studio.fixBelow, 'error'), { form: formName, message, value: name }),
      422,
    );
  };

  const courseOfModule = async (actx: AuthoringContext, moduleId: number) =>
    (await findAuthoredCourse(app.db, actx.author, { module: moduleId })).id;
  const courseOfChapter = async (actx: AuthoringContext, chapterId: number) =>
    (await findAuthoredCourse(app.db, actx.author, { chapter: chapterId })).id;

  app.post(
    '/studio/courses/:id/modules',
    { config: { auth: AUTHORS, csrf: 'form', authoringLimited: true }, schema: formSchema('Adds a module') },
    async (request, reply) => {
      const { actx } = await who(request);
      const courseId = (await findAuthoredCourse(app.db, actx.author, { course: idOf(request) })).id;
      return outlineName(request, reply, courseId, 'module', (name) => createModule(app.db, actx, courseId, { name, description: '' }));
    },
  );
  app.post(
    '/studio/modules/:id/rename',
    { config: { auth: AUTHORS, csrf: 'form', authoringLimited: true }, schema: formSchema('Renames a module') },
    async (request, reply) => {
      const { actx } = await who(request);
      const courseId = await courseOfModule(actx, idOf(request));
      return outlineName(request, reply, courseId, `rename-${idOf(request)}`, (name) =>
        updateModule(app.db, actx, idOf(request), { name }),
      );
    },
  );
  app.post(
    '/studio/modules/:id/chapters',
    { config: { auth: AUTHORS, csrf: 'form', authoringLimited: true }, schema: formSchema('Adds a chapter to a module') },
    async (request, reply) => {
      const { actx } = await who(request);
      const courseId = await courseOfModule(actx, idOf(request));
      return outlineName(request, reply, courseId, `chapter-${idOf(request)}`, (name) =>
        createChapter(app.db, actx, idOf(request), { name, content: '' }),
      );
    },
  );

  /** Moves a module or a chapter one place up or down: the whole outline, reordered, through reorderOutline. */
  const move = async (request: FastifyRequest, reply: FastifyReply, kind: 'module' | 'chapter') => {
    const { actx } = await who(request);
    const id = idOf(request);
    const courseId = kind === 'module' ? await courseOfModule(actx, id) : await courseOfChapter(actx, id);
    const { document } = await exportCourse(app.db, actx, courseId);
    const outline = document.modules.map((m) => ({ id: m.id as number, chapterIds: m.chapters.map((ch) => ch.id as number) }));
    const step = form(request).direction === 'up' ? -1 : 1;
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
    await reorderOutline(app.db, actx, courseId, { modules: outline });
    await changed(courseId);
    return back(reply, studioPath(courseId, '/outline'));
  };
  app.post(
    '/studio/modules/:id/move',
    { config: { auth: AUTHORS, csrf: 'form', authoringLimited: true }, schema: formSchema('Moves a module up or down') },
    (request, reply) => move(request, reply, 'module'),
  );
  app.post(
    '/studio/chapters/:id/move',
    { config: { auth: AUTHORS, csrf: 'form', authoringLimited: true }, schema: formSchema('Moves a chapter up or down') },
    (request, reply) => move(request, reply, 'chapter'),
  );

  const remove = async (request: FastifyRequest, reply: FastifyReply, kind: 'module' | 'chapter') => {
    const { actx } = await who(request);
    const id = idOf(request);
    const courseId = kind === 'module' ? await courseOfModule(actx, id) : await courseOfChapter(actx, id);
    try {
      if (kind === 'module') await deleteModule(app.db, actx, id);
      else await deleteChapter(app.db, actx, id);
    } catch (err) {
      if (err instanceof LearnersHoldError) return back(reply, studioPath(courseId, '/outline?held=1'));
      throw err;
    }
    await changed(courseId);
    return back(reply, studioPath(courseId, '/outline?saved=1'));
  };
  const quizLine = (ctx: PageContext, q: QuizOut | null) => (q ? [ctx.t.studio.confirm.quizLine(q.name, q.questions.length)] : []);
  app.get(
    '/studio/modules/:id/delete',
    { config: { auth: AUTHORS }, schema: pageSchema('Course studio: confirm deleting a module') },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const id = idOf(request);
      const tree = await exportCourse(app.db, actx, await courseOfModule(actx, id));
      const m = tree.document.modules.find((x) => x.id === id);
      if (!m) throw new NotFoundError('Module not found');
      const lines = [
        ...quizLine(ctx, m.quiz),
        ...m.chapters.flatMap((ch) => [ctx.t.studio.confirm.chapterLine(ch.name), ...quizLine(ctx, ch.quiz)]),
      ];
      const action = href('/dashboard/studio/modules', id, 'delete');
      const cancel = href('/dashboard/studio/courses', tree.course.id, 'outline');
      return confirmDelete(reply, ctx, session, tree.course, 'outline', ctx.t.studio.confirm.module(m.name), { lines }, action, cancel);
    },
  );
  app.get(
    '/studio/chapters/:id/delete',
    { config: { auth: AUTHORS }, schema: pageSchema('Course studio: confirm deleting a chapter') },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const id = idOf(request);
      const tree = await exportCourse(app.db, actx, await courseOfChapter(actx, id));
      const ch = tree.document.modules.flatMap((m) => m.chapters).find((x) => x.id === id);
      if (!ch) throw new NotFoundError('Chapter not found');
      const action = href('/dashboard/studio/chapters', id, 'delete');
      const cancel = href('/dashboard/studio/courses', tree.course.id, 'outline');
      const question = ctx.t.studio.confirm.chapter(ch.name);
      return confirmDelete(reply, ctx, session, tree.course, 'outline', question, { lines: quizLine(ctx, ch.quiz) }, action, cancel);
    },
  );
  app.post(
    '/studio/modules/:id/delete',
    { config: { auth: AUTHORS, csrf: 'form', authoringLimited: true }, schema: formSchema('Deletes a module') },
    (request, reply) => remove(request, reply, 'module'),
  );
  app.post(
    '/studio/chapters/:id/delete',
    { config: { auth: AUTHORS, csrf: 'form', authoringLimited: true }, schema: formSchema('Deletes a chapter') },
    (request, reply) => remove(request, reply, 'chapter'),
  );

  // ------------------------------------------------------------------ chapter editor
  const chapterOf = async (actx: AuthoringContext, chapterId: number) => {
    const course = await findAuthoredCourse(app.db, actx.author, { chapter: chapterId });
    const { rows } = await app.db.execute(
      sql`select id, module_id as "moduleId", name, content, version from chapters where id = ${chapterId}`,
    );
    if (!rows[0]) throw new NotFoundError('Chapter not found');
    return { course, chapter: rows[0] as { id: number; moduleId: number; name: string; content: string; version: number } };
  };

  const chapterPage = async (
    ctx: PageContext,
    actx: AuthoringContext,
    course: CourseRow,
    chapterId: number,
    values: FormValues,
    errors: FieldErrors,
    options: { note?: Html | false; previewTyped?: boolean; compare?: Html | false; storedContent: string },
  ) => {
    const s = ctx.t.studio;
    const pictures = await listPictures(app.db, actx, course.id);
    const pictureList =
      pictures.length === 0
        ? html`<p class="muted">${s.pictures.none} <a href="${href('/dashboard/studio/courses', course.id, 'pictures')}">${s.chapter.uploadHere}</a></p>`
        : html`<ul class="pictures">${pictures.map(
            (p) =>
              html`<li><img src="${href(picturePath(p))}" alt="" width="80"> <code>![${p.originalName.replace(/[[\]]/g, '')}](${picturePath(p)})</code></li>`,
          )}</ul><p><a href="${href('/dashboard/studio/courses', course.id, 'pictures')}">${s.chapter.uploadHere}</a></p>`;
    const previewSource = options.previewTyped ? (values.content ?? '') : options.storedContent;
    // Rendered once per text, off the event loop (lib/markdown/renderer.ts); the author is told
    // when learners will not see it formatted.
    const rendered = await app.markdown.render(previewSource);
    const renderNote =
      rendered.outcome !== 'rendered' &&
      flash(
        rendered.outcome === 'too_deep'
          ? s.chapter.tooDeep(ctx.f.number(MARKDOWN_MAX_NESTING))
          : rendered.outcome === 'timed_out'
            ? s.chapter.renderTimedOut
            : s.chapter.renderFailed,
        'error',
      );
    return html`${options.note ?? false}${options.compare ?? false}
<h2>${s.chapter.title(values.name ?? '')}</h2>
<form method="post" action="${href('/dashboard/studio/chapters', chapterId)}" class="stack editor">
<input type="hidden" name="version" value="${values.version ?? ''}">
${field(s.fields.name, 'name', values, errors, { required: true })}
${field(s.chapter.content, 'content', values, errors, { textarea: 18 })}
${field(s.chapter.videoUrl, 'videoUrl', values, errors, { type: 'url', hint: s.chapter.videoRefused(app.config.STUDIO_VIDEO_HOSTS.join(', ')) })}
<p><button type="submit" name="action" value="save">${s.save}</button>
<button type="submit" name="action" value="preview" class="secondary">${s.chapter.showPreview}</button>
<button type="submit" name="action" value="video" class="secondary">${s.chapter.addVideo}</button></p>
</form>
<section class="card" aria-labelledby="pics"><h2 id="pics">${s.chapter.pictures}</h2>${pictureList}</section>
<section class="card chapter-preview" aria-labelledby="preview"><h2 id="preview">${options.previewTyped ? s.chapter.previewOf : s.chapter.preview}</h2>
${renderNote}<div class="markdown">${markdownFragment(rendered)}</div></section>`;
  };

  app.get(
    '/studio/chapters/:id',
    { config: { auth: AUTHORS }, schema: pageSchema('Course studio: chapter editor') },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const { course, chapter } = await chapterOf(actx, idOf(request));
      const values = { name: chapter.name, content: chapter.content, version: String(chapter.version) };
      const note = (request.query as Record<string, string>).saved === '1' && flash(ctx.t.studio.saved);
      const body = await chapterPage(ctx, actx, course, chapter.id, values, {}, { note, storedContent: chapter.content });
      return show(reply, ctx, session, course, 'outline', ctx.t.studio.chapter.title(chapter.name), body, 200, MARKDOWN_PAGE_CSP);
    },
  );

  app.post(
    '/studio/chapters/:id',
    {
      config: { auth: AUTHORS, csrf: 'form', authoringLimited: true },
      schema: formSchema('Saves a chapter (or previews it, or adds a video)'),
      // A chapter's form, not the 4 MiB of a course document: a bigger body is a 413 page before it is parsed.
      bodyLimit: CHAPTER_FORM_BODY_LIMIT,
    },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const { course, chapter } = await chapterOf(actx, idOf(request));
      const typed = { ...form(request) };
      const s = ctx.t.studio;
      const again = (
        errors: FieldErrors,
        status: number,
        extra: { note?: Html | false; previewTyped?: boolean; compare?: Html | false } = {},
      ) =>
        chapterPage(ctx, actx, course, chapter.id, typed, errors, { storedContent: chapter.content, ...extra }).then((body) =>
          show(reply, ctx, session, course, 'outline', s.chapter.title(chapter.name), body, status, MARKDOWN_PAGE_CSP),
        );
      const action = String(typed.action ?? 'save');
      // What is typed is checked as a saved chapter is (the content limit) before it is rendered or saved.
      const contentProblem = chapterContentProblem(ctx, typed.content);
      if (contentProblem !== null) return again({ content: contentProblem }, 422, { note: flash(s.fixBelow, 'error') });
      if (action === 'preview') return again({}, 200, { previewTyped: true });
      if (action === 'video') {
        const embed = videoEmbedUrl(String(typed.videoUrl ?? ''), app.config.STUDIO_VIDEO_HOSTS);
        if (embed === null)
          return again({ videoUrl: s.chapter.videoRefused(app.config.STUDIO_VIDEO_HOSTS.join(', ')) }, 422, {
            note: flash(s.fixBelow, 'error'),
          });
        typed.content = `${String(typed.content ?? '').trimEnd()}${videoMarkdown(embed, String(typed.name ?? 'Video'))}`;
        typed.videoUrl = '';
        const withVideo = chapterContentProblem(ctx, typed.content);
        if (withVideo !== null) return again({ content: withVideo }, 422, { note: flash(s.fixBelow, 'error') });
        return again({}, 200, { previewTyped: true });
      }
      const name = String(typed.name ?? '').trim();
      const content = String(typed.content ?? '');
      const errors: FieldErrors = {};
      if (name === '' || name.length > 255) errors.name = s.fixBelow;
      if (Object.keys(errors).length > 0) return again(errors, 422, { note: flash(s.fixBelow, 'error') });
      try {
        await updateChapter(app.db, actx, chapter.id, { name, content }, versionOf(typed));
      } catch (err) {
        if (err instanceof StaleVersionError) {
          const stored = err.stored as { name: string; content: string; version: number };
          const compare = staleCompare(ctx, { name: stored.name, content: stored.content }, typed, ['name', 'content']);
          // The form now edits the stored version, with what was typed kept in it (the comparison shows theirs).
          typed.version = String(stored.version);
          return again({}, 409, { compare });
        }
        if (err instanceof BadRequestError || err instanceof PaymentRequiredError)
          return again(problemsOf(err as BadRequestError), 422, { note: flash(err.message, 'error') });
        throw err;
      }
      await changed(course.id);
      return back(reply, `/dashboard/studio/chapters/${chapter.id}?saved=1`);
    },
  );

  // ------------------------------------------------------------------ quiz editor
  const QuizParams = z.object({ scope: z.enum(QUIZ_SCOPES), id: Id });
  const placeOf = (p: { scope: (typeof QUIZ_SCOPES)[number]; id: number }): QuizPlace =>
    p.scope === 'chapter' ? { chapter: p.id } : p.scope === 'module' ? { module: p.id } : { finalOf: p.id };
  const quizAtPlace = async (actx: AuthoringContext, p: { scope: (typeof QUIZ_SCOPES)[number]; id: number }) => {
    const course = await findAuthoredCourse(
      app.db,
      actx.author,
      p.scope === 'chapter' ? { chapter: p.id } : p.scope === 'module' ? { module: p.id } : { course: p.id },
    );
    const { document } = await exportCourse(app.db, actx, course.id);
    let quiz: QuizOut | null = null;
    let label = '';
    if (p.scope === 'final') {
      quiz = document.finalExam;
      label = '';
    }
    for (const m of document.modules) {
      if (p.scope === 'module' && m.id === p.id) [quiz, label] = [m.quiz, m.name];
      for (const ch of m.chapters) if (p.scope === 'chapter' && ch.id === p.id) [quiz, label] = [ch.quiz, ch.name];
    }
    const version = quiz === null ? 0 : await quizVersion(app.db, quiz.id);
    return { course, quiz, label, version };
  };

  const quizPage = (
    ctx: PageContext,
    p: { scope: string; id: number },
    label: string,
    values: FormValues,
    errors: FieldErrors,
    note: Html | false,
    compare: Html | false = false,
    exists = true,
  ) => {
    const s = ctx.t.studio;
    const qz = s.quiz;
    const count = Math.max(0, Math.min(200, Number(values.count ?? 0) || 0));
    const kinds = QUESTION_KINDS.map((k) => [k, qz.kinds[k]] as [string, string]);
    const questions = Array.from(
      { length: count },
      (_, i) => html`<fieldset class="card question"><legend>${qz.question(i + 1)}</legend>
<input type="hidden" name="q${i}_id" value="${values[`q${i}_id`] ?? ''}">
${field(qz.kind, `q${i}_type`, values, errors, { choices: kinds })}
${field(qz.text, `q${i}_text`, values, errors, { textarea: 2 })}
${field(qz.options, `q${i}_options`, values, errors, { textarea: 4 })}
${field(qz.right, `q${i}_right`, values, errors)}
${field(qz.points, `q${i}_points`, values, errors, { type: 'number' })}
${field(qz.explanation, `q${i}_explanation`, values, errors, { textarea: 2 })}
</fieldset>`,
    );
    const action = href('/dashboard/studio/quizzes', p.scope, p.id);
    return html`${note}${compare}
<h2>${qz.title(p.scope === 'final' ? s.outline.finalExam : label)}</h2>
<form method="post" action="${action}" class="stack">
<input type="hidden" name="version" value="${values.version ?? '0'}">
<input type="hidden" name="count" value="${String(count)}">
${field(qz.name, 'name', values, errors, { required: true })}
${field(qz.description, 'description', values, errors, { textarea: 2 })}
${field(p.scope === 'final' ? qz.finalPassMark : qz.minimumScore, 'minimumScore', values, errors, { type: 'number' })}
${field(qz.timeLimit, 'timeLimit', values, errors, { type: 'number' })}
${field(qz.maxAttempts, 'maxAttempts', values, errors, { type: 'number' })}
<p class="muted">${qz.blankRemoves}</p>
${questions}
<p><button type="submit" name="action" value="save">${s.save}</button> <button type="submit" name="action" value="more" class="secondary">${qz.moreQuestions}</button></p>
</form>
${exists && html`<p><a href="${href('/dashboard/studio/quizzes', p.scope, p.id, 'delete')}" class="danger-link">${qz.remove}</a></p>`}`;
  };

  app.get(
    '/studio/quizzes/:scope/:id',
    { config: { auth: AUTHORS }, schema: pageSchema('Course studio: quiz editor', QuizParams) },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const p = request.params as z.infer<typeof QuizParams>;
      const { course, quiz, label, version } = await quizAtPlace(actx, p);
      const values = quizValues(quiz, version, quiz === null || quiz.questions.length === 0 ? 1 : 0);
      // A new final exam starts at the course's pass mark, the one it is graded by (rules/pass-mark.ts).
      if (p.scope === 'final' && quiz === null) values.minimumScore = String(course.min_passing_score);
      const note = (request.query as Record<string, string>).saved === '1' && flash(ctx.t.studio.saved);
      return show(
        reply,
        ctx,
        session,
        course,
        'outline',
        ctx.t.studio.quiz.title(label),
        quizPage(ctx, p, label, values, {}, note, false, quiz !== null),
      );
    },
  );

  app.post(
    '/studio/quizzes/:scope/:id',
    { config: { auth: AUTHORS, csrf: 'form', authoringLimited: true }, schema: formSchema('Saves a quiz', QuizParams) },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const p = request.params as z.infer<typeof QuizParams>;
      const { course, quiz, label } = await quizAtPlace(actx, p);
      const typed = { ...form(request) };
      const s = ctx.t.studio;
      const again = (errors: FieldErrors, status: number, note: Html | false, compare: Html | false = false) =>
        show(
          reply,
          ctx,
          session,
          course,
          'outline',
          s.quiz.title(label),
          quizPage(ctx, p, label, typed, errors, note, compare, quiz !== null),
          status,
        );
      const { body, errors } = quizBody(typed);
      if (!body) return again(errors, 422, flash(s.fixBelow, 'error'));
      let saved: Awaited<ReturnType<typeof putQuiz>>;
      try {
        saved = await putQuiz(app.db, actx, placeOf(p), body, versionOf(typed) ?? 0);
      } catch (err) {
        if (err instanceof StaleVersionError) {
          const stored = quizValues(err.stored as QuizOut | null, err.current, 0);
          const keys = [...new Set([...Object.keys(stored), ...Object.keys(typed)])].filter(
            (k) => !['version', 'count', 'action'].includes(k) && !k.endsWith('_id'),
          );
          const compare = staleCompare(ctx, stored, typed, keys);
          typed.version = String(err.current);
          return again({}, 409, false, compare);
        }
        if (err instanceof BadRequestError) return again(problemsOf(err), 422, flash(err.message, 'error'));
        throw err;
      }
      await changed(course.id);
      if (typed.action === 'more') {
        const values = quizValues(saved.quiz, saved.version, 1);
        return show(reply, ctx, session, course, 'outline', s.quiz.title(label), quizPage(ctx, p, label, values, {}, flash(s.saved)), 200);
      }
      return back(reply, `/dashboard/studio/quizzes/${p.scope}/${p.id}?saved=1`);
    },
  );

  app.get(
    '/studio/quizzes/:scope/:id/delete',
    { config: { auth: AUTHORS }, schema: pageSchema('Course studio: confirm deleting a quiz', QuizParams) },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const p = request.params as z.infer<typeof QuizParams>;
      const { course, quiz } = await quizAtPlace(actx, p);
      if (quiz === null) throw new NotFoundError('There is no quiz here');
      const c = ctx.t.studio.confirm;
      return confirmDelete(
        reply,
        ctx,
        session,
        course,
        'outline',
        c.quiz(quiz.name),
        { lines: [c.questions(quiz.questions.length)] },
        href('/dashboard/studio/quizzes', p.scope, p.id, 'delete'),
        href('/dashboard/studio/quizzes', p.scope, p.id),
      );
    },
  );

  app.post(
    '/studio/quizzes/:scope/:id/delete',
    { config: { auth: AUTHORS, csrf: 'form', authoringLimited: true }, schema: formSchema('Deletes a quiz', QuizParams) },
    async (request, reply) => {
      const { actx } = await who(request);
      const p = request.params as z.infer<typeof QuizParams>;
      const { course } = await quizAtPlace(actx, p);
      try {
        await deleteQuiz(app.db, actx, placeOf(p));
      } catch (err) {
        if (err instanceof LearnersHoldError) return back(reply, studioPath(course.id, '/outline?held=1'));
        throw err;
      }
      await changed(course.id);
      return back(reply, studioPath(course.id, '/outline?saved=1'));
    },
  );

  // ------------------------------------------------------------------ pictures
  const picturesPage = async (ctx: PageContext, actx: AuthoringContext, course: CourseRow, note: Html | false) => {
    const s = ctx.t.studio.pictures;
    const pictures = await listPictures(app.db, actx, course.id);
    const rows = pictures.map((p) => {
      const isCover = course.cover_picture?.endsWith(picturePath(p)) === true;
      return html`<li class="card"><img src="${href(picturePath(p))}" alt="${p.originalName}" width="160">
<p><code>![${p.originalName.replace(/[[\]]/g, '')}](${picturePath(p)})</code></p>
${isCover ? html`<span class="badge completed">${s.isCover}</span>` : html`<form method="post" action="${href('/dashboard/studio/courses', course.id, 'pictures', p.id, 'cover')}" class="inline"><button type="submit" class="secondary">${s.makeCover}</button></form>`}
<a href="${href('/dashboard/studio/courses', course.id, 'pictures', p.id, 'delete')}" class="danger-link">${s.delete}</a></li>`;
    });
    return html`${note}
<form method="post" action="${href('/dashboard/studio/courses', course.id, 'pictures')}" enctype="multipart/form-data" class="card stack">
<p class="field"><label for="f-file">${s.file}</label> <input id="f-file" type="file" name="file" accept="image/png,image/jpeg,image/webp,image/gif" required><br><small class="muted">${s.limit(mb(ctx))}</small></p>
<button type="submit">${s.upload}</button>
</form>
${pictures.length === 0 ? html`<p class="muted">${s.none}</p>` : html`<ul class="course-list">${rows}</ul>`}`;
  };

  app.get(
    '/studio/courses/:id/pictures',
    { config: { auth: AUTHORS }, schema: pageSchema('Course studio: pictures') },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const course = await findAuthoredCourse(app.db, actx.author, { course: idOf(request) });
      const note = (request.query as Record<string, string>).saved === '1' && flash(ctx.t.studio.pictures.uploaded);
      return show(reply, ctx, session, course, 'pictures', ctx.t.studio.pictures.title, await picturesPage(ctx, actx, course, note));
    },
  );

  app.post(
    '/studio/courses/:id/pictures',
    {
      config: { auth: AUTHORS, csrf: 'form', authoringLimited: true },
      // No body schema: the multipart body is read by the handler (a `body: undefined` key made
      // Fastify warn FSTWRN001 at every start).
      schema: withoutBody(formSchema('Uploads a picture (multipart/form-data, field `file`)')),
      // A body announced larger than the limit (plus room for the form's other parts) is refused before a byte of it is read.
      onRequest: async (request) => {
        const length = Number(request.headers['content-length'] ?? 0);
        if (length > uploadLimit + 64 * 1024) (request as FastifyRequest & { tooLarge?: boolean }).tooLarge = true;
      },
    },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const course = await findAuthoredCourse(app.db, actx.author, { course: idOf(request) });
      const s = ctx.t.studio.pictures;
      const refuse = async (message: string, status: number) => {
        reply.header('connection', 'close');
        return show(
          reply,
          ctx,
          session,
          course,
          'pictures',
          s.title,
          await picturesPage(ctx, actx, course, flash(message, 'error')),
          status,
        );
      };
      if ((request as FastifyRequest & { tooLarge?: boolean }).tooLarge) return refuse(s.tooLarge(mb(ctx)), 413);
      if (!request.isMultipart()) return refuse(s.noFile, 422);
      let bytes: Buffer;
      let name = '';
      try {
        const file = await request.file();
        if (!file) return refuse(s.noFile, 422);
        name = file.filename;
        bytes = await file.toBuffer();
      } catch (err) {
        if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') return refuse(s.tooLarge(mb(ctx)), 413);
        throw err;
      }
      if (bytes.length === 0) return refuse(s.noFile, 422);
      try {
        await uploadPicture(app.db, store, actx, course.id, { bytes, name });
      } catch (err) {
        if (err instanceof PictureTooLargeError) return refuse(overLimit(ctx, err), 422);
        if (err instanceof PictureNameError) return refuse(s.badName, 422);
        if (err instanceof UnsupportedPictureError) return refuse(err.message, 422);
        throw err;
      }
      return back(reply, studioPath(course.id, '/pictures?saved=1'));
    },
  );

  const PictureParams = z.object({ id: Id, pictureId: Id });
  app.post(
    '/studio/courses/:id/pictures/:pictureId/cover',
    {
      config: { auth: AUTHORS, csrf: 'form', authoringLimited: true },
      schema: formSchema('Makes a picture the course cover', PictureParams),
    },
    async (request, reply) => {
      const { actx } = await who(request);
      const { id, pictureId } = request.params as z.infer<typeof PictureParams>;
      const picture = await findCoursePicture(app.db, actx, id, pictureId);
      const course = await findAuthoredCourse(app.db, actx.author, { course: id });
      await updateCourseFields(
        app.db,
        actx,
        id,
        { coverPicture: `${app.config.PUBLIC_URL.replace(/\/$/, '')}${picturePath(picture)}` },
        course.version,
      );
      await changed(id);
      return back(reply, studioPath(id, '/pictures'));
    },
  );
  app.get(
    '/studio/courses/:id/pictures/:pictureId/delete',
    { config: { auth: AUTHORS }, schema: pageSchema('Course studio: confirm deleting a picture', PictureParams) },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const { id, pictureId } = request.params as z.infer<typeof PictureParams>;
      const picture = await findCoursePicture(app.db, actx, id, pictureId);
      const course = await findAuthoredCourse(app.db, actx.author, { course: id });
      const path = picturePath(picture);
      const { rows } = await app.db.execute(
        sql`select name from chapters where course_id = ${id} and strpos(content, ${path}) > 0 order by order_index, id`,
      );
      const c = ctx.t.studio.confirm;
      const inChapters = (rows as { name: string }[]).map((r) => c.chapterLine(r.name));
      return confirmDelete(
        reply,
        ctx,
        session,
        course,
        'pictures',
        c.picture(picture.originalName),
        {
          lines: [],
          notes: [
            course.cover_picture?.endsWith(path) === true && c.isCover,
            inChapters.length > 0 && `${c.inText} ${inChapters.join(', ')}`,
          ],
          picture: path,
        },
        href('/dashboard/studio/courses', id, 'pictures', pictureId, 'delete'),
        href('/dashboard/studio/courses', id, 'pictures'),
      );
    },
  );
  app.post(
    '/studio/courses/:id/pictures/:pictureId/delete',
    { config: { auth: AUTHORS, csrf: 'form', authoringLimited: true }, schema: formSchema('Deletes a picture', PictureParams) },
    async (request, reply) => {
      const { actx } = await who(request);
      const { id, pictureId } = request.params as z.infer<typeof PictureParams>;
      await deletePicture(app.db, actx, id, pictureId);
      return back(reply, studioPath(id, '/pictures'));
    },
  );

  // ------------------------------------------------------------------ history
  app.get(
    '/studio/courses/:id/history',
    { config: { auth: AUTHORS }, schema: pageSchema('Course studio: history') },
    async (request, reply) => {
      const { session, ctx, actx } = await who(request);
      const course = await findAuthoredCourse(app.db, actx.author, { course: idOf(request) });
      const before = Number((request.query as Record<string, string>).before);
      const history = await readHistory(app.db, actx, course.id, {
        limit: 50,
        ...(Number.isSafeInteger(before) && before > 0 ? { before } : {}),
      });
      const h = ctx.t.studio.history;
      const rows = history.events.map(
        (e) => html`<tr><td data-label="${h.when}">${ctx.f.dateTime(e.at)}</td>
<td data-label="${h.who}">${e.actor.name ?? e.actor.partnerIssuer ?? '—'}</td>
<td data-label="${h.what}"><code>${e.action}</code> ${join(
          (e.changes as { path: string }[]).slice(0, 5).map((c) => html`<code>${c.path}</code>`),
          ', ',
        )}</td></tr>`,
      );
      const body =
        history.events.length === 0
          ? html`<p class="muted">${h.none}</p>`
          : html`<div class="table-wrap"><table class="responsive"><thead><tr><th scope="col">${h.when}</th><th scope="col">${h.who}</th><th scope="col">${h.what}</th></tr></thead><tbody>${rows}</tbody></table></div>
${history.nextBefore !== null && html`<p><a href="${href('/dashboard/studio/courses', course.id, 'history').withQuery({ before: history.nextBefore })}">${h.older}</a></p>`}`;
      return show(reply, ctx, session, course, 'history', h.title, html`<h2>${h.title}</h2>${body}`);
    },
  );
};

/** The version a form was opened at (`version`), or undefined when it carries none. */
function versionOf(values: FormValues): number | undefined {
  const v = Number(values.version);
  return Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/** A BadRequestError's field problems (invalidBody's details), by field name. */
/** A picture over one of PICTURE_LIMITS, said with its figures and the limit. */
function overLimit(ctx: PageContext, err: PictureTooLargeError): string {
  const s = ctx.t.studio.pictures;
  const n = (v: number) => ctx.f.number(v);
  const { width, height, frames, scans } = err.header;
  switch (err.limit) {
    case 'pixels':
      return s.tooManyPixels(n(width), n(height), n(PICTURE_LIMITS.pixels));
    case 'gifFrames':
      return s.tooManyFrames(n(frames), n(PICTURE_LIMITS.gifFrames));
    case 'gifPixels':
      return s.gifTooLarge(n(frames), n(width), n(height), n(frames * width * height), n(PICTURE_LIMITS.gifPixels));
    case 'jpegScans':
      return s.tooManyScans(n(scans ?? 0), n(PICTURE_LIMITS.jpegScans));
  }
}

function problemsOf(err: BadRequestError): FieldErrors {
  const details = (err as unknown as { details?: { path: string; message: string }[] }).details ?? [];
  return Object.fromEntries(details.map((d) => [d.path.split('.')[0], d.message]));
}

/** What is stored next to what was typed, for each field that differs (the 409 page). */
function staleCompare(ctx: PageContext, stored: FormValues, typed: FormValues, keys: string[]): Html {
  const s = ctx.t.studio.stale;
  const rows = keys
    .filter((k) => (stored[k] ?? '') !== (typed[k] ?? ''))
    .map(
      (k) =>
        html`<tr><th scope="row">${k}</th><td data-label="${s.stored}"><pre class="stored">${stored[k] ?? ''}</pre></td><td data-label="${s.yours}"><pre class="typed">${typed[k] ?? ''}</pre></td></tr>`,
    );
  return html`<div class="warning" role="alert" id="stale"><h2>${s.title}</h2><p>${s.text}</p>
<div class="table-wrap"><table class="responsive"><thead><tr><th scope="col"></th><th scope="col">${s.stored}</th><th scope="col">${s.yours}</th></tr></thead><tbody>${rows}</tbody></table></div></div>`;
}

export default studio;
