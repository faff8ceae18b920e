import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ForbiddenError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false` turns off the cross-site check of plugins/csrf.ts for this route (say why where you do). */
    csrf?: boolean;
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
    app.addHook('onRequest', async (request) => {
      if (request.caller?.kind !== 'session' || SAFE_METHODS.has(request.method)) return;
      if (request.routeOptions.config?.csrf === false) return;
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
