import { ErrorResponse, RedirectResponse, SignOutResponse, type SsoErrorCode, SsoTokenQuery } from '@lms/contracts';
import { hashToken } from '@lms/db';
import { CLOCK_TOLERANCE_SECONDS, PartnerTokenError, Reasons, verifyPartnerToken } from '@lms/partner-auth';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { deleteSession } from '../../domain/sessions.js';
import { SsoFailure, signInMember } from '../../domain/sso.js';
import { ForbiddenError } from '../../errors.js';
import { isSameOrigin } from '../../plugins/csrf.js';

/** A repeated `token` parameter is as malformed as a broken token. */
const MALFORMED = Reasons.malformed;

/** Where a failed sign-in lands (DESIGN §5): `/sign-in?error=<code>&reason=<text>`. */
function signInUrl(code: SsoErrorCode, reason?: string): string {
  const query = new URLSearchParams({ error: code });
  if (reason !== undefined) query.set('reason', reason);
  return `/sign-in?${query.toString()}`;
}

function failSignIn(reply: FastifyReply, code: SsoErrorCode, reason?: string) {
  return reply.redirect(signInUrl(code, reason), 307);
}

/**
 * Partner single sign-on on the LMS side, and sign-out.
 *
 * The browser arrives from the gateway at `/sso/verify?token=`, is sent on (307) to the callback,
 * which verifies the token (@lms/partner-auth), spends its `jti`, finds or creates the user,
 * opens a session, sets the cookie and lands on `/dashboard`. Every failure is a 307 to
 * `/sign-in` with DESIGN §5's code and reason, and sets no cookie.
 */
const ssoRoutes: FastifyPluginAsyncZod = async (app) => {
  // The dashboard's sign-out button is a plain HTML form: browsers send it as an (empty)
  // urlencoded body. Nothing in it is read; the parser only keeps Fastify from answering 415.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_request, _body, done) =>
    done(null, undefined),
  );

  app.get(
    '/sso/verify',
    {
      schema: {
        tags: ['sso'],
        summary: 'Entry of the SSO hand-off (the gateway points the browser here)',
        description: '307 to `/api/auth/sso/callback?token=<token>`; without a token, 307 to `/sign-in?error=missing_token`.',
        querystring: SsoTokenQuery,
        response: { 307: RedirectResponse },
      },
    },
    async (request, reply) => {
      const { token } = request.query;
      if (token === undefined || token === '') return failSignIn(reply, 'missing_token');
      if (Array.isArray(token)) return failSignIn(reply, 'invalid_token', MALFORMED);
      return reply.redirect(`/api/auth/sso/callback?${new URLSearchParams({ token }).toString()}`, 307);
    },
  );

  app.get(
    '/api/auth/sso/callback',
    {
      schema: {
        tags: ['sso'],
        summary: 'Verifies the partner token, signs the member in and redirects to the dashboard',
        description:
          'Success: session cookie set, 302 to `/dashboard`. Failure: 307 to `/sign-in?error=<code>&reason=<text>` ' +
          '(`missing_token`; `invalid_token` for anything wrong with the token, a replayed `jti` included; ' +
          '`sso_failed` with `missing_email`, `missing_membership_id`, `member_inactive`, `account_creation_failed`, ' +
          '`session_creation_failed`) and no cookie. Every `invalid_token` refusal counts as a failed credential of the ' +
          'client IP: past FAILED_AUTH_PER_MINUTE of them in a minute, 429 `{success:false, error}` with `Retry-After` ' +
          'before the token is looked at. Clock tolerance on `exp` and `iat`: ' +
          `${CLOCK_TOLERANCE_SECONDS} s.`,
        querystring: SsoTokenQuery,
        response: { 302: RedirectResponse, 307: RedirectResponse, 429: ErrorResponse },
      },
    },
    async (request, reply) => {
      const { token } = request.query;
      if (token === undefined || token === '') return failSignIn(reply, 'missing_token');
      // A client that sent too many refused tokens is answered 429 before any partner or key lookup.
      app.failedCredentials.refuseIfOver(request);
      if (Array.isArray(token)) return failSignIn(reply, 'invalid_token', MALFORMED);

      let claims;
      try {
        claims = await verifyPartnerToken(token, { purpose: 'sso', registry: app.partnerKeys, now: app.clock });
      } catch (err) {
        if (err instanceof PartnerTokenError) {
          // A forged or foreign token (unknown issuer, key or signature...) counts as a failed credential.
          if (err.code === 'invalid_token') await app.failedCredentials.record(request);
          request.log.info({ reason: err.reason }, 'SSO token refused');
          return failSignIn(reply, err.code, err.reason);
        }
        request.log.error({ err }, 'SSO verification failed unexpectedly');
        return failSignIn(reply, 'invalid_token', 'The token could not be verified.');
      }
      // verifyPartnerToken guarantees both for the sso purpose.
      const email = claims.email!;
      const membershipId = claims.membershipId!;

      const now = app.clock();
      let signIn;
      try {
        signIn = await signInMember(
          app.db,
          { ...claims, email, membershipId, keepTokenUntil: new Date((claims.expiresAt + CLOCK_TOLERANCE_SECONDS) * 1000) },
          now,
          app.config.SESSION_TTL_HOURS * 3_600_000,
        );
      } catch (err) {
        const reason = err instanceof SsoFailure ? err.reason : 'session_creation_failed';
        request.log.error({ err }, `SSO sign-in failed: ${reason}`);
        return failSignIn(reply, 'sso_failed', reason);
      }
      if (signIn.outcome === 'replayed') {
        request.log.warn({ issuer: claims.issuer, jti: claims.jti }, 'SSO token replayed');
        return failSignIn(reply, 'invalid_token', 'Token has already been used.');
      }
      if (signIn.outcome === 'refused') return failSignIn(reply, 'sso_failed', signIn.reason);
      const { userId, session } = signIn;
      app.setSessionCookie(reply, session.token, session.expiresAt);
      request.log.info({ userId, issuer: claims.issuer }, 'signed in through SSO');
      return reply.redirect('/dashboard', 302);
    },
  );

  app.post(
    '/api/auth/sign-out',
    {
      schema: {
        tags: ['sso'],
        summary: 'Ends the session server-side and clears the cookie',
        description:
          'Same-origin only (CSRF): the `Origin` header, or failing that `Sec-Fetch-Site: same-origin`, must show the ' +
          "request comes from the LMS's own pages; otherwise 403. A browser form (Accept: text/html) gets 303 to " +
          '`/sign-in`; other callers get `{success:true}`. Signing out without a session succeeds too.',
        response: { 200: SignOutResponse, 303: RedirectResponse, 403: ErrorResponse },
      },
    },
    async (request, reply) => {
      if (!isSameOrigin(request, app.config.PUBLIC_URL)) {
        throw new ForbiddenError('Sign-out must come from the LMS itself (Origin header missing or foreign)');
      }
      const token = request.cookies[app.sessionCookieName];
      if (token) await deleteSession(app.db, hashToken(token));
      app.clearSessionCookie(reply);
      if ((request.headers.accept ?? '').includes('text/html')) return reply.redirect('/sign-in', 303);
      return { success: true as const };
    },
  );
};

export default ssoRoutes;
