import type { FastifyRequest } from 'fastify';
import type { AuthRequirement, Caller, Role } from '../../plugins/auth.js';
import { ForbiddenError } from '../../errors.js';

export const SESSION_ONLY =
  "Session only: a signed-in person's browser session (any role may learn). An API key gets 403; no credentials, 401.";
export const CSRF_RULE =
  ' Being cookie-authenticated and state-changing, the request must carry the `x-requested-with` header (any value) ' +
  "and, if it sends `Origin`, come from this service's own origin; otherwise 403.";

/**
 * What a learning route asks of its caller: a session (the auth plugin answers a valid API key
 * with 403, no credentials with 401), of any role unless given.
 */
export function sessionOnly(roles?: readonly Role[]): AuthRequirement {
  return roles ? { accepts: ['session'], roles } : { accepts: ['session'] };
}

/** The caller of a session-only route, narrowed (the auth plugin has already refused anything else). */
export function sessionCaller(request: FastifyRequest): Extract<Caller, { kind: 'session' }> {
  const caller = request.caller;
  if (caller?.kind !== 'session') throw new ForbiddenError('The learning routes take a signed-in session, not an API key');
  return caller;
}
