import { HtmlPage, MAX_ID, RedirectResponse } from '@lms/contracts';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AUTHOR_ROLES,
  type AuthoringContext,
  type CourseRow,
  findAuthoredCourse,
  isCoursePublished,
} from '../../domain/authoring/index.js';
import type { BadRequestError } from '../../errors.js';
import type { RouteAuth } from '../../plugins/auth.js';
import { type PageContext, pageContext } from '../i18n/index.js';
import { sendPage } from '../send.js';
import { type PageSession, pageSession } from '../session.js';
import { type Html, type href, html } from '../view/html.js';
import { page } from '../view/layout.js';
import type { FieldErrors, FormValues } from './forms.js';
import { confirmDeleteBody, type DeleteDetails, type StudioTab, studioHeader } from './views.js';

// What every screen of the course studio (./index.ts) is built from, written once: how a screen's
// routes are declared (who may reach them, their schema, the form CSRF rule), who is asking, the
// course an editor opens, the page around a screen, and the answers to a form (a redirect, the
// problems by field, the version a form was opened at).

/** The studio plugin's Fastify instance (the zod type provider). */
export type App = Parameters<FastifyPluginAsyncZod>[0];

/**
 * Who reaches the studio: a session of a role that may author (domain/authoring, AUTHOR_ROLES),
 * refused before a form is read; which courses each may write is the domain's rule. Every form
 * post counts against the author's budget per minute (plugins/rate-limit.ts).
 */
const AUTHORS: RouteAuth = { accepts: ['session'], roles: AUTHOR_ROLES };

export const Id = z.coerce.number().int().min(1).max(MAX_ID);
const IdParams = z.object({ id: Id });
const Form = z.record(z.string(), z.unknown()).nullish();

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** A page of the studio (GET): its URL under /dashboard, what it shows, its handler and its path's parameters. */
export function getPage(url: string, summary: string, handler: Handler, params: z.ZodType = IdParams): RouteOptions {
  return {
    method: 'GET',
    url,
    config: { auth: AUTHORS },
    schema: { hide: true, tags: ['pages'], summary, params, response: { 200: HtmlPage, 302: RedirectResponse } },
    handler,
  };
}

/**
 * A form of the studio (POST, under the form CSRF rule and the authoring budget). `multipart`: the
 * body is read by the handler, so the schema has no `body` key (an undefined one made Fastify warn
 * FSTWRN001 at every start).
 */
export function postForm(
  url: string,
  summary: string,
  handler: Handler,
  params: z.ZodType = IdParams,
  options: Pick<RouteOptions, 'bodyLimit' | 'onRequest'> & { multipart?: boolean } = {},
): RouteOptions {
  const { multipart, ...rest } = options;
  return {
    method: 'POST',
    url,
    config: { auth: AUTHORS, csrf: 'form', authoringLimited: true },
    schema: {
      hide: true,
      tags: ['pages'],
      summary,
      params,
      ...(multipart ? {} : { body: Form }),
      response: { 200: HtmlPage, 303: RedirectResponse, 409: HtmlPage, 413: HtmlPage, 422: HtmlPage },
    },
    ...rest,
    handler,
  };
}

/** Who is asking: the page session (its role checked by AUTHORS), the page's words, and the author the domain is given. */
export async function who(app: App, request: FastifyRequest) {
  const session = await pageSession(app, request);
  const ctx = pageContext(app, request);
  const actx: AuthoringContext = {
    author: { kind: 'session', userId: session.caller.userId, role: session.caller.role },
    now: app.clock(),
    requestId: request.id,
  };
  return { session, ctx, actx };
}

/** The `:id` of the path. */
export const idOf = (request: FastifyRequest) => (request.params as { id: number }).id;
/** What the form sent, field by field (../form-body.ts). */
export const formOf = (request: FastifyRequest) => (request.body ?? {}) as FormValues;
/** The query string's values. */
export const queryOf = (request: FastifyRequest) => request.query as Record<string, string | undefined>;

/** The course an editor opens (a course's `:id`), when this author may write it (404/403 otherwise). */
export const courseOf = (app: App, actx: AuthoringContext, courseId: number) =>
  findAuthoredCourse(app.db, actx.author, { course: courseId });

/** The id of the course a module or a chapter belongs to, when this author may write it. */
export const courseIdOfItem = async (app: App, actx: AuthoringContext, kind: 'module' | 'chapter', id: number) =>
  (await findAuthoredCourse(app.db, actx.author, kind === 'module' ? { module: id } : { chapter: id })).id;

export const studioPath = (courseId: number, tail = '') => `/dashboard/studio/courses/${courseId}${tail}`;

/** The answer to a form that worked: see the page it changed (303, never cached). */
export const back = (reply: FastifyReply, path: string) => reply.header('cache-control', 'no-store').redirect(path, 303);

/** After a write: a published course's shows in the API-key catalog (plugins/catalog-cache.ts); a draft's never does. */
export async function changed(app: App, courseId: number): Promise<void> {
  app.catalogChanged({ published: await isCoursePublished(app.db, courseId) });
}

/** A studio screen: the course's header and tabs above `body`, in the dashboard's page. */
export function show(
  reply: FastifyReply,
  ctx: PageContext,
  session: PageSession,
  course: CourseRow,
  tab: StudioTab | null,
  title: string,
  body: Html,
  status = 200,
  csp?: string,
) {
  const whole = html`${studioHeader(ctx, course, tab)}\n${body}`;
  return sendPage(reply, page(ctx, title, whole, { user: session.user, current: '/dashboard' }), status, csp);
}

type Href = ReturnType<typeof href>;

/** The confirmation page of a delete, on its course's tab (views.ts, confirmDeleteBody). */
export function confirmDelete(
  reply: FastifyReply,
  who: { ctx: PageContext; session: PageSession },
  course: CourseRow,
  tab: StudioTab,
  question: string,
  details: DeleteDetails,
  action: Href,
  cancel: Href,
) {
  const body = confirmDeleteBody(who.ctx, question, details, action, cancel);
  return show(reply, who.ctx, who.session, course, tab, question, body);
}

/** The version a form was opened at (`version`), or undefined when it carries none. */
export function versionOf(values: FormValues): number | undefined {
  const v = Number(values.version);
  return Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/** A BadRequestError's field problems (invalidBody's details), by field name. */
export function problemsOf(err: BadRequestError): FieldErrors {
  return Object.fromEntries((err.details ?? []).map((d) => [d.path.split('.')[0], d.message]));
}
