import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ForbiddenError } from '../errors.js';

/** A session's form post that does not come from the LMS's own pages (pages say it in the person's language). */
export class CrossSiteFormError extends ForbiddenError {
  constructor() {
    super('This form must be sent from the LMS itself');
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The cross-site check of plugins/csrf.ts for this route: on by default (the header rule);
     * `'form'` for a plain HTML form, which cannot send the header (the same-origin rule instead);
     * `false` turns it off (say why where you do).
     */
    csrf?: boolean | 'form';
  }
  interface FastifyInstance {
    /** The routes that take the form rule (`csrf: 'form'`), as registered: what test/plugins/csrf-forms.test.ts attacks. */
    csrfFormRoutes: { method: string; url: string }[];
  }
}

/** The header our pages send with every state-changing fetch. */
export const CSRF_HEADER = 'x-requested-with';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery guard for cookie-authenticated requests that change state.
 *
 * A session cookie rides along with any request the browser makes, even one started by another
 * site (SameSite=Lax still sends it on some cross-site navigations, and same-site sibling hosts
 * are not cross-site at all). So a POST, PUT, PATCH or DELETE authenticated by a session must:
 * - carry the `x-requested-with` header (any non-empty value). An HTML form cannot set a header,
 *   and a cross-origin `fetch` that sets one needs a CORS preflight, which this service never
 *   approves (it sends no CORS headers);
 * - if it carries `Origin`, come from the origin of PUBLIC_URL.
 * API-key callers are not concerned (no ambient credential), nor safe methods.
 * Runs in an onRequest hook after the auth plugin's, before the body is parsed.
 */
export default fp(
  async (app) => {
    const ownOrigin = new URL(app.config.PUBLIC_URL).origin;
    const formRoutes: { method: string; url: string }[] = [];
    app.decorate('csrfFormRoutes', formRoutes);
    app.addHook('onRoute', (route) => {
      if (route.config?.csrf !== 'form') return;
      for (const method of [route.method].flat()) formRoutes.push({ method, url: route.url });
    });
    app.addHook('onRequest', async (request) => {
      if (request.caller?.kind !== 'session' || SAFE_METHODS.has(request.method)) return;
      const mode = request.routeOptions.config?.csrf;
      if (mode === false) return;
      if (mode === 'form') {
        if (!isSameOrigin(request, app.config.PUBLIC_URL)) throw new CrossSiteFormError();
        return;
      }
      const origin = request.headers.origin;
      if (origin !== undefined && origin !== ownOrigin) {
        throw new ForbiddenError('Cross-site request refused: Origin does not match this service');
      }
      const marker = request.headers[CSRF_HEADER];
      if (typeof marker !== 'string' || marker.trim() === '') {
        throw new ForbiddenError(`Cross-site request refused: send the ${CSRF_HEADER} header with session requests that change data`);
      }
    });
  },
  { name: 'csrf', dependencies: ['auth'] },
);

/**
 * The cross-site check for a plain HTML form that changes state (sign-out), which cannot send the
 * header above: browsers send `Origin` on every POST, and `Sec-Fetch-Site`; either must say the
 * request comes from the LMS, whose origin is PUBLIC_URL's or the Host the request was sent to.
 */
export function isSameOrigin(request: FastifyRequest, publicUrl: string): boolean {
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== 'null') {
    const allowed = new Set([new URL(publicUrl).origin, `${request.protocol}://${request.host}`]);
    return allowed.has(origin);
  }
  return request.headers['sec-fetch-site'] === 'same-origin';
}
