import { ErrorResponse, HtmlPage, RedirectResponse, SignOutResponse, type SsoErrorCode, SsoTokenQuery } from '@lms/contracts';
import { hashToken, isDatabaseUnavailable, isTransactionConflict } from '@lms/db';
import {
  CLOCK_TOLERANCE_SECONDS,
  GATEWAY_PROOF_PARAM,
  GATEWAY_PROOF_TTL_SECONDS,
  PartnerTokenError,
  Reasons,
  type VerifiedSsoToken,
  verifyGatewayProof,
  verifyPartnerToken,
} from '@lms/partner-auth';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { deleteSession, findSession } from '../../domain/sessions.js';
import { identityOwner, SsoFailure, signInMember } from '../../domain/sso.js';
import { findUserProfile } from '../../domain/user-profile.js';
import { lmsJwks } from '../../domain/member-check.js';
import { publishedCredentialKeys } from '../../domain/credentials/credential.js';
import { pageContext } from '../../pages/i18n/index.js';
import { sendPage } from '../../pages/send.js';
import { switchAccountView } from '../../pages/sign-in/index.js';
import { ForbiddenError } from '../../errors.js';
import { REPLAYED_TOKEN_REASON, UNVERIFIABLE_TOKEN_REASON } from '../../metrics/sso-reasons.js';
import { isSameOrigin } from '../../plugins/csrf.js';

/** A repeated `token` parameter is as malformed as a broken token. */
const MALFORMED = Reasons.malformed;

/** Where a failed sign-in lands: `/sign-in?error=<code>&reason=<text>` (docs/architecture.md, "Sign-in errors"). */
function signInUrl(code: SsoErrorCode, reason?: string): string {
  const query = new URLSearchParams({ error: code });
  if (reason !== undefined) query.set('reason', reason);
  return `/sign-in?${query.toString()}`;
}

function failSignIn(reply: FastifyReply, code: SsoErrorCode, reason?: string) {
  reply.server.metrics.ssoSignIn(code, reason);
  return reply.redirect(signInUrl(code, reason), 307);
}

/** `sso_failed` reason when the database is unavailable: the member should try again shortly. */
const SSO_TEMPORARILY_UNAVAILABLE = 'temporarily_unavailable';

/** The database could not answer: `sso_failed` / `temporarily_unavailable`, logged at debug (the outage is logged once). */
function failSignInForNow(request: FastifyRequest, reply: FastifyReply, err: unknown) {
  request.log.debug({ err }, 'SSO sign-in: database unavailable, or rolled back for a concurrent transaction');
  return failSignIn(reply, 'sso_failed', SSO_TEMPORARILY_UNAVAILABLE);
}

/**
 * Partner single sign-on on the LMS side, and sign-out.
 *
 * The browser arrives from the gateway at `/sso/verify?token=&proof=`, is sent on (307) to the
 * callback with both, which first checks the gateway's proof (docs/architecture.md, "SSO only
 * through the gateway": the gateway enforced the partner's IP allowlist, so a token that did not
 * pass it is refused before any key lookup), then verifies the token (@lms/partner-auth), spends
 * its `jti`, finds or creates the user, opens a session, sets the cookie and lands on `/dashboard`.
 * Every failure is a 307 to `/sign-in` with the code and reason of docs/architecture.md, "Sign-in
 * errors", and sets no cookie.
 */
const ssoRoutes: FastifyPluginAsyncZod = async (app) => {
  // The sign-out button and the switch-account question are plain HTML forms (urlencoded bodies):
  // sign-out reads nothing of its body; the question posts the token and the gateway's proof.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => {
    const params = new URLSearchParams(body as string);
    done(null, { token: params.getAll('token'), proof: params.getAll(GATEWAY_PROOF_PARAM) });
  });

  /**
   * The callback's work, for the link (GET) and for the switch-account question's answer (POST,
   * `switching`): the gateway's proof, the token, then, unless switching, the question when this
   * browser holds another person's session; then the sign-in itself.
   */
  async function signInWithToken(request: FastifyRequest, reply: FastifyReply, token: unknown, proof: unknown, switching: boolean) {
    if (token === undefined || token === '' || (Array.isArray(token) && token.length === 0)) return failSignIn(reply, 'missing_token');
    // A client that sent too many refused tokens is answered 429 before any partner or key lookup.
    app.failedCredentials.refuseIfOver(request);
    if (typeof token !== 'string') return failSignIn(reply, 'invalid_token', MALFORMED);

    // The gateway's proof before anything else: no key lookup, no JWKS fetch for a token that
    // did not come through the gateway (and so past the partner's IP allowlist).
    const secret = app.config.GATEWAY_SECRET;
    if (!secret) return failSignIn(reply, 'invalid_token', Reasons.gatewayNotConfigured);
    const proven = verifyGatewayProof(secret, token, proof as string | string[] | undefined, app.clock().getTime() / 1000);
    if (!proven.ok) {
      // A token sent round the gateway is a refused credential like a forged one.
      await app.failedCredentials.record(request);
      request.log.info({ problem: proven.problem }, 'SSO token refused: not through the gateway');
      return failSignIn(reply, 'invalid_token', proven.reason);
    }

    let claims: VerifiedSsoToken;
    try {
      claims = await verifyPartnerToken(token, { purpose: 'sso', registry: app.partnerKeys, now: app.clock });
    } catch (err) {
      if (err instanceof PartnerTokenError) {
        // A forged or foreign token (unknown issuer, key or signature...) counts as a failed credential.
        if (err.code === 'invalid_token') await app.failedCredentials.record(request);
        request.log.info({ reason: err.reason }, 'SSO token refused');
        return failSignIn(reply, err.code, err.reason);
      }
      // The partner's keys are looked up in the database: nothing is wrong with the token.
      if (isDatabaseUnavailable(err)) return failSignInForNow(request, reply, err);
      request.log.error({ err }, 'SSO verification failed unexpectedly');
      return failSignIn(reply, 'invalid_token', UNVERIFIABLE_TOKEN_REASON);
    }
    // verifyPartnerToken guarantees both for the sso purpose.
    const email = claims.email;
    const membershipId = claims.membershipId;

    const now = app.clock();
    const previous = await sessionOf(request, now);
    if (previous && !switching) {
      // Login CSRF: someone else's sign-in link opened in a browser where a person is signed in.
      // The token is not spent: the person's answer (a same-origin form) brings it back.
      const owner = await identityOwner(app.db, claims.issuer, membershipId).catch(() => null);
      if (owner?.id !== previous.userId) {
        const current = await findUserProfile(app.db, previous.userId);
        const incoming = { name: owner?.name ?? null, email };
        const proofs = [proof ?? []].flat().filter((p): p is string => typeof p === 'string');
        return sendPage(reply, switchAccountView(pageContext(app, request), current ?? { name: '?' }, incoming, { token, proof: proofs }));
      }
    }
    // The partner's member check, if it registered one (docs/architecture.md, "Member check").
    let membership: Awaited<ReturnType<typeof app.memberCheck>>;
    try {
      membership = await app.memberCheck(claims.issuer, membershipId);
    } catch (err) {
      if (isDatabaseUnavailable(err)) return failSignInForNow(request, reply, err);
      throw err;
    }
    if (membership.outcome === 'inactive') return failSignIn(reply, 'sso_failed', 'member_inactive');
    if (membership.outcome === 'unanswered') {
      request.log.warn({ issuer: claims.issuer, problem: membership.problem, allowed: membership.allowed }, 'member check unanswered');
      if (!membership.allowed) return failSignIn(reply, 'sso_failed', SSO_TEMPORARILY_UNAVAILABLE);
    }
    let signIn: Awaited<ReturnType<typeof signInMember>>;
    try {
      signIn = await signInMember(
        app.db,
        { ...claims, email, membershipId, keepTokenUntil: new Date((claims.expiresAt + CLOCK_TOLERANCE_SECONDS) * 1000) },
        now,
        app.config.SESSION_TTL_HOURS * 3_600_000,
      );
    } catch (err) {
      // Each statement is all or nothing (the account with its identity; the jti with the
      // session): unless the session statement committed and only its answer was lost, the jti
      // is unspent and the same token works once the database is back. A statement PostgreSQL
      // rolled back for a concurrent one (a deadlock) kept nothing either: the same answer.
      if (isDatabaseUnavailable(err) || isTransactionConflict(err)) return failSignInForNow(request, reply, err);
      const reason = err instanceof SsoFailure ? err.reason : 'session_creation_failed';
      request.log.error({ err }, `SSO sign-in failed: ${reason}`);
      return failSignIn(reply, 'sso_failed', reason);
    }
    if (signIn.outcome === 'replayed') {
      request.log.warn({ issuer: claims.issuer, jti: claims.jti }, 'SSO token replayed');
      return failSignIn(reply, 'invalid_token', REPLAYED_TOKEN_REASON);
    }
    if (signIn.outcome === 'refused') return failSignIn(reply, 'sso_failed', signIn.reason);
    const { userId, session } = signIn;
    // The person chose to switch: the other person's session ends here, not just its cookie.
    if (previous && previous.userId !== userId) await deleteSession(app.db, previous.tokenHash);
    app.setSessionCookie(reply, session.token, session.expiresAt);
    request.log.info({ userId, issuer: claims.issuer }, 'signed in through SSO');
    app.metrics.ssoSignIn('signed_in');
    return reply.redirect('/dashboard', switching ? 303 : 302);
  }

  /** The session this browser's cookie opens, if any (a stale or unknown cookie is none). */
  async function sessionOf(request: FastifyRequest, now: Date) {
    const cookie = request.cookies[app.sessionCookieName];
    if (!cookie) return null;
    return findSession(app.db, hashToken(cookie), now).catch(() => null);
  }

  app.get(
    '/sso/verify',
    {
      config: { public: true },
      schema: {
        tags: ['sso'],
        operationId: 'verifySsoHandOff',
        summary: 'Entry of the SSO hand-off (the gateway points the browser here)',
        description:
          "307 to `/api/auth/sso/callback?token=<token>&proof=<proof>`, carrying the gateway's proof as it came; " +
          'without a token, 307 to `/sign-in?error=missing_token`.',
        querystring: SsoTokenQuery,
        response: { 307: RedirectResponse },
      },
    },
    async (request, reply) => {
      const { token, proof } = request.query;
      if (token === undefined || token === '') return failSignIn(reply, 'missing_token');
      if (Array.isArray(token)) return failSignIn(reply, 'invalid_token', MALFORMED);
      // The proof goes on as it came (the callback judges it, a repeated one included).
      const query = new URLSearchParams({ token });
      for (const value of [proof ?? []].flat()) query.append(GATEWAY_PROOF_PARAM, value);
      return reply.redirect(`/api/auth/sso/callback?${query.toString()}`, 307);
    },
  );

  app.get(
    '/.well-known/jwks.json',
    {
      config: { public: true },
      schema: {
        tags: ['sso'],
        operationId: 'getSigningKeys',
        summary: "The LMS's public signing keys (JWKS): member-check tokens (ES256) and Open Badges credentials (RS256)",
        description:
          '`application/jwk-set+json`. Partners verify the member-check tokens with the ES256 keys; anyone verifies the ' +
          'Open Badges 3.0 credentials and status lists the LMS signs with the RS256 keys, each listed twice: under its ' +
          'kid URL (`/credentials/keys/urn:ietf:params:oauth:jwk-thumbprint:sha-256:<thumbprint>`, what credentials name now) ' +
          'and under its bare RFC 7638 thumbprint (the kid of credentials issued before), with `iss` = the issuer. Every ' +
          'credential key ever used stays here after a rotation. Cached for 60 s.',
        response: { 200: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }) },
      },
    },
    async (_request, reply) => {
      // Short: a newly configured credential key signs at once, and verifiers must see it soon.
      reply.header('cache-control', 'public, max-age=60').type('application/jwk-set+json');
      const [member, credentials] = await Promise.all([lmsJwks(app.db), publishedCredentialKeys(app.db, app.config.PUBLIC_URL)]);
      return { keys: [...member.keys, ...credentials] };
    },
  );

  app.get(
    '/api/auth/sso/callback',
    {
      // The partner's token is the credential; the handler checks it (through the gateway's proof).
      config: { public: true },
      schema: {
        tags: ['sso'],
        operationId: 'ssoCallback',
        summary: 'Verifies the partner token, signs the member in and redirects to the dashboard',
        description:
          'Success: session cookie set, 302 to `/dashboard`; in a browser where another person is signed in, 200 with a ' +
          'page asking whether to switch (see POST). Failure: 307 to `/sign-in?error=<code>&reason=<text>` ' +
          '(`missing_token`; `invalid_token` for anything wrong with the token, a replayed `jti` included, and for a ' +
          "token without the gateway's valid `proof` (missing, forged, another token's, or older than " +
          `${GATEWAY_PROOF_TTL_SECONDS} s): reason "The sign-in did not come through the gateway: ...", checked before ` +
          'anything else about the token; on an LMS without GATEWAY_SECRET every sign-in is refused so; a ' +
          'course-creation (bearer) token is refused too (its `sub` is no tier, or it lacks `email`); ' +
          '`sso_failed` with `missing_email`, `missing_membership_id`, `member_inactive`, `email_in_use`, `account_creation_failed`, ' +
          '`session_creation_failed`, or `temporarily_unavailable` when the database cannot answer: nothing is ' +
          "kept, not even the token's `jti`, and the member may try again shortly) and no cookie. Every `invalid_token` refusal " +
          'counts as a failed credential of the client IP: past FAILED_AUTH_PER_MINUTE of them in a minute, 429 ' +
          '`{success:false, error}` with `Retry-After` before the token is looked at. The token signs in the account of its identity (`iss`, `membershipId`), ' +
          "made by the partner's first sign-in or linked by an operator; without one a student account is created, unless the " +
          "token's `email` is another account's: `email_in_use`, and that account is left unchanged. Clock tolerance on `exp` and `iat`: " +
          `${CLOCK_TOLERANCE_SECONDS} s.`,
        querystring: SsoTokenQuery,
        response: { 200: HtmlPage, 302: RedirectResponse, 307: RedirectResponse, 429: ErrorResponse },
      },
    },
    async (request, reply) => signInWithToken(request, reply, request.query.token, request.query.proof, false),
  );

  app.post(
    '/api/auth/sso/callback',
    {
      // The answer to the switch-account question: the token is the credential, the form's origin the guard.
      config: { public: true },
      schema: {
        tags: ['sso'],
        operationId: 'switchAccount',
        summary: 'Switch accounts: the answer to the question a signed-in browser gets from a sign-in link',
        description:
          'A sign-in link opened in a browser where another person is signed in does not switch accounts at once: ' +
          "the callback answers 200 with a page asking whether to continue as the link's person (login CSRF: " +
          "anyone could otherwise hand a victim their own link). This is that page's form (urlencoded `token` and " +
          '`proof`), same-origin only (403 otherwise): the same checks as the link, then the other session ends, the ' +
          'new one starts, and 303 to `/dashboard`.',
        response: { 303: RedirectResponse, 307: RedirectResponse, 403: ErrorResponse, 429: ErrorResponse },
      },
    },
    async (request, reply) => {
      if (!isSameOrigin(request, app.config.PUBLIC_URL)) {
        throw new ForbiddenError('The switch-account form must come from the LMS itself (Origin header missing or foreign)');
      }
      const body = (request.body ?? {}) as { token?: string[]; proof?: string[] };
      // As the query would carry them: one value as a string, a repeated one as a list (refused).
      const single = (values: string[] | undefined) => (values?.length === 1 ? values[0] : values);
      return signInWithToken(request, reply, single(body.token), single(body.proof), true);
    },
  );

  app.post(
    '/api/auth/sign-out',
    {
      // Signing out without a session succeeds too; the same-origin check is the guard.
      config: { public: true },
      schema: {
        tags: ['sso'],
        operationId: 'signOut',
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
