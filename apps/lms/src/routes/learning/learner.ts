import { ErrorResponse } from '@lms/contracts';
import type { FastifyRequest } from 'fastify';
import { CSRF_RULE, sessionCaller } from './session-only.js';

/** The signed-in learner of a learning route (an API key gets 403: see ./session-only.ts). */
export function sessionLearner(request: FastifyRequest): string {
  return sessionCaller(request).userId;
}

export const WHO =
  'For any signed-in person (session cookie); an API key gets 403, no credentials 401. The course must have an ' +
  'enrollment of the caller (403 otherwise).';
export const CSRF = CSRF_RULE;

export const commonErrors = {
  401: ErrorResponse.describe('No session, or an invalid one'),
  429: ErrorResponse.describe('Too many failed credentials from the client IP, with Retry-After'),
};
