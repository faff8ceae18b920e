import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../plugins/auth.js';
import { findUserProfile, type UserProfile } from '../domain/user-profile.js';
import { UnauthorizedError } from '../errors.js';

export interface PageSession {
  caller: Extract<Caller, { kind: 'session' }>;
  user: UserProfile;
}

/**
 * The signed-in person of a page request. Page routes set `config: { auth: true }`; pages are for
 * browser sessions only, so an API key does not open them. A 401 here becomes a redirect to
 * /sign-in (see the scope's error handler in ./index.ts).
 */
export async function pageSession(app: FastifyInstance, request: FastifyRequest): Promise<PageSession> {
  const caller = request.caller;
  if (caller?.kind !== 'session') throw new UnauthorizedError('Sign in to see this page');
  const user = await findUserProfile(app.db, caller.userId);
  if (!user) throw new UnauthorizedError('Sign in to see this page');
  return { caller, user };
}

/** The person for the nav of an error page, if the request has a valid session; never throws. */
export async function optionalSession(app: FastifyInstance, request: FastifyRequest): Promise<UserProfile | null> {
  try {
    if (!request.caller) await app.authenticate(request, undefined as never);
    if (request.caller?.kind !== 'session') return null;
    return await findUserProfile(app.db, request.caller.userId);
  } catch {
    return null;
  }
}
