import { HtmlPage, RedirectResponse } from '@lms/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ConflictError, ForbiddenError } from '../errors.js';
import { CrossSiteFormError } from '../plugins/csrf.js';
import { acceptFormBodies } from './form-body.js';
import { type PageContext, pageContext } from './i18n/index.js';
import { type PageSession, pageSession } from './session.js';

// What the page routes of every feature write the same way: their schema's frame, the 303 back to
// the page a form came from, and a scope of plain forms whose refusals speak the person's language.

/** Every page route: HTML for people, not part of the JSON API's OpenAPI document. */
export const PAGE = { hide: true, tags: ['pages'] };

/** The schema of a page a person opens: its HTML, or the redirect to /sign-in without a session. */
export function htmlPageSchema<S extends object>(schema: S) {
  return { ...PAGE, ...schema, response: { 200: HtmlPage, 302: RedirectResponse } };
}

/** The route options of a page for the signed-in (`auth: true`, and any more `config`), its schema framed. */
export function pageOptions<S extends object>(schema: S, config: { sessionLimited?: boolean; documentLimited?: boolean } = {}) {
  return { config: { auth: true as const, ...config }, schema: htmlPageSchema(schema) };
}

/** The signed-in person of a page (./session.ts: else the redirect to /sign-in) and their language. */
export async function signedIn(app: FastifyInstance, request: FastifyRequest): Promise<{ session: PageSession; ctx: PageContext }> {
  return { session: await pageSession(app, request), ctx: pageContext(app, request) };
}

/** The route options of a plain form post (`csrf: 'form'`) of the signed-in: its answer is the 303 back. */
export function formOptions<S extends object>(schema: S) {
  return { config: { auth: true as const, csrf: 'form' as const }, schema: { ...PAGE, ...schema, response: { 303: RedirectResponse } } };
}

/** Back to the page a form was sent from, with its outcome in the query: never cached. */
export function seeOther(reply: FastifyReply, path: string): FastifyReply {
  return reply.header('cache-control', 'no-store').redirect(path, 303);
}

/**
 * A scope of plain HTML form posts (`csrf: 'form'`) of at most `bodyLimit` bytes: a cross-site
 * post is a 403 page saying so, and any other 403 (a rule of the domain, in its English) the
 * page's "not allowed", in the person's language. Rethrown, the error goes on to the pages' own
 * handler (./index.ts).
 */
export function formScope(app: FastifyInstance, bodyLimit: number): void {
  acceptFormBodies(app, bodyLimit);
  app.setErrorHandler(async (err, request) => {
    const words = pageContext(app, request).t.enrol.forbidden;
    if (err instanceof CrossSiteFormError) throw new ForbiddenError(words.crossSite);
    if (err instanceof ForbiddenError) throw new ForbiddenError(words.notAllowed);
    throw err;
  });
}

/**
 * `done` once the work is done, or `refused` when the domain says it was already decided (a
 * ConflictError: a second tab, a stale page): the page then says so rather than failing.
 */
export async function unlessDecided<D extends string, R extends string = 'already'>(
  work: () => Promise<unknown>,
  done: D,
  refused: R = 'already' as R,
): Promise<D | R> {
  try {
    await work();
    return done;
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    return refused;
  }
}
