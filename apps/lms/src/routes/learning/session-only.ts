import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../../plugins/auth.js';
import { ForbiddenError } from '../../errors.js';

export const SESSION_ONLY =
  'Session only: a signed-in person\'s browser session (any role may learn). An API key gets 403; no credentials, 401.';
export const CSRF_RULE =
  ' Being cookie-authenticated and state-changing, the request must carry the `x-requested-with` header (any value) ' +
  "and, if it sends `Origin`, come from this service's own origin; otherwise 403.";

/**
 * The learning routes are for people, not integrations: after the auth hook resolved the caller
 * (route `config.auth`), anything but a session is refused. Added to a plugin's own scope.
 */
export function refuseApiKeys(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (request.caller && request.caller.kind !== 'session') {
      throw new ForbiddenError('The learning routes take a signed-in session, not an API key');
    }
  });
}

export function sessionCaller(request: FastifyRequest): Extract<Caller, { kind: 'session' }> {
  const caller = request.caller;
  if (caller?.kind !== 'session') throw new ForbiddenError('The learning routes take a signed-in session, not an API key');
  return caller;
}
