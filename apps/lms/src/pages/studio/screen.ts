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
import type { RouteAuth } from '../../plugins/auth.js';
import { type PageContext, pageContext } from '../i18n/index.js';
import { sendPage } from '../send.js';
import { type PageSession, pageSession } from '../session.js';
import { type Html, type href, html } from '../view/html.js';
import { STUDIO_SCRIPT_PATH, STUDIO_STYLESHEET_PATH } from '../assets.js';
import { page } from '../view/layout.js';
import type { FormValues } from './forms.js';
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
export const AUTHORS: RouteAuth = { accepts: ['session'], roles: AUTHOR_ROLES };

export const Id = z.coerce.number().int().min(1).max(MAX_ID);
export const IdParams = z.object({ id: Id });
const Form = z.record(z.string(), z.unknown()).nullish();

/** A studio request as a screen's handler is given it: who asks, what they sent, and the ways to answer. */
export interface Asked {
  request: FastifyRequest;
  reply: FastifyReply;
  session: PageSession;
  /** The page's words and formats. */
  ctx: PageContext;
  /** The author the domain is given. */
  actx: AuthoringContext;
  /** The path's `:id` (NaN where the path has none, /studio/new). */
  id: number;
  /** What the form sent, field by field (../form-body.ts). */
  form: FormValues;
  query: Record<string, string | undefined>;
  /** A studio screen: the course's header and tabs above `body`, in the dashboard's page. */
  show(course: CourseRow, tab: StudioTab | null, title: string, body: Html, status?: number, csp?: string): FastifyReply;
  /** The confirmation page of a delete, on its course's tab (views.ts, confirmDeleteBody). */
  confirmDelete(course: CourseRow, tab: StudioTab, question: string, details: DeleteDetails, action: Href, cancel: Href): FastifyReply;
  /** The answer to a form that worked: see the page it changed (303, never cached). */
  back(path: string): FastifyReply;
}

type Href = ReturnType<typeof href>;
type Handler = (asked: Asked) => Promise<unknown>;
type Declared = Omit<RouteOptions, 'handler'>;
/** A route of a screen: what Fastify is given, and its handler, given the request as Asked. */
export type StudioRoute = Declared & { answer: Handler };

/** A page of the studio (GET): its URL under /dashboard, what it shows, its handler and its path's parameters. */
export function getPage(url: string, summary: string, answer: Handler, params: z.ZodType = IdParams): StudioRoute {
  return {
    method: 'GET',
    url,
    config: { auth: AUTHORS },
    schema: { hide: true, tags: ['pages'], summary, params, response: { 200: HtmlPage, 302: RedirectResponse } },
    answer,
  };
}

/**
 * A form of the studio (POST, under the form CSRF rule and the authoring budget). `multipart`: the
 * body is read by the handler, so the schema has no `body` key (an undefined one made Fastify warn
 * FSTWRN001 at every start). `created`: the JSON a script's call is answered with (201).
 */
export function postForm(
  url: string,
  summary: string,
  answer: Handler,
  params: z.ZodType = IdParams,
  options: Pick<RouteOptions, 'bodyLimit' | 'onRequest'> & { multipart?: boolean; created?: z.ZodType } = {},
): StudioRoute {
  const { multipart, created, ...rest } = options;
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
      response: { 200: HtmlPage, ...(created ? { 201: created } : {}), 303: RedirectResponse, 409: HtmlPage, 413: HtmlPage, 422: HtmlPage },
    },
    ...rest,
    answer,
  };
}

/** The Fastify route of a studio route: its handler is given the request as Asked, who asks read first. */
export function routeOf(app: App, { answer, ...route }: StudioRoute): RouteOptions {
  return { ...route, handler: async (request, reply) => answer(await asked(app, request, reply)) };
}

async function asked(app: App, request: FastifyRequest, reply: FastifyReply): Promise<Asked> {
  const session = await pageSession(app, request);
  const ctx = pageContext(app, request);
  const actx: AuthoringContext = {
    author: { kind: 'session', userId: session.caller.userId, role: session.caller.role },
    now: app.clock(),
    requestId: request.id,
  };
  const show = (course: CourseRow, tab: StudioTab | null, title: string, body: Html, status = 200, csp?: string) => {
    const whole = html`${studioHeader(ctx, course, tab)}\n${body}`;
    // Every studio screen loads the studio's script and styles (client/studio-editor.ts): each part
    // of it starts only on the page that has its elements.
    const options = { user: session.user, current: '/dashboard', script: STUDIO_SCRIPT_PATH, stylesheet: STUDIO_STYLESHEET_PATH };
    return sendPage(reply, page(ctx, title, whole, options), status, csp);
  };
  return {
    request,
    reply,
    session,
    ctx,
    actx,
    id: Number((request.params as { id?: number }).id),
    form: (request.body ?? {}) as FormValues,
    query: request.query as Record<string, string | undefined>,
    show,
    confirmDelete: (course, tab, question, details, action, cancel) =>
      show(course, tab, question, confirmDeleteBody(ctx, question, details, action, cancel)),
    back: (path) => reply.header('cache-control', 'no-store').redirect(path, 303),
  };
}

/** The course an editor opens (a course's `:id`), when this author may write it (404/403 otherwise). */
export const courseOf = (app: App, actx: AuthoringContext, courseId: number) =>
  findAuthoredCourse(app.db, actx.author, { course: courseId });

/** The id of the course a module or a chapter belongs to, when this author may write it. */
export const courseIdOfItem = async (app: App, actx: AuthoringContext, kind: 'module' | 'chapter', id: number) =>
  (await findAuthoredCourse(app.db, actx.author, kind === 'module' ? { module: id } : { chapter: id })).id;

export const studioPath = (courseId: number, tail = '') => `/dashboard/studio/courses/${courseId}${tail}`;

/** After a write: a published course's shows in the API-key catalog (plugins/catalog-cache.ts); a draft's never does. */
export async function changed(app: App, courseId: number): Promise<void> {
  app.catalogChanged({ published: await isCoursePublished(app.db, courseId) });
}

/** The version a form was opened at (`version`), or undefined when it carries none. */
export function versionOf(values: FormValues): number | undefined {
  const v = Number(values.version);
  return Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}
