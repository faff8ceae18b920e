import { hashToken, isDatabaseUnavailable, isWellFormedApiKey, type UserRole } from '@lms/db';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type ApiKeyOwner, findApiKeyOwner, touchApiKey } from '../domain/api-keys.js';
import { findSession, touchSession } from '../domain/sessions.js';
import { ForbiddenError, UnauthorizedError } from '../errors.js';
import { SharedAnswers } from '../lib/shared-answers.js';
import { authenticatePartnerToken } from './gateway-credential.js';

/** The roles of @lms/db's `userRole` enum. */
export type Role = UserRole;

/** Who is calling: a teacher's API key, or a person's browser session. */
export type Caller =
  | { kind: 'api-key'; userId: string; role: Role; apiKeyId: number; keyHash: string }
  | { kind: 'session'; userId: string; role: Role; sessionTokenHash: string };

/**
 * The credentials the LMS knows: a teacher's API key (`x-api-key`), a browser session (the
 * session cookie), a partner's bearer JWT forwarded by the gateway (course creation).
 */
export type CredentialKind = 'api-key' | 'session' | 'partner-token';

/**
 * What a route asks of its caller: one of these credential kinds and, if given, one of these roles
 * (checked in onRequest, before the body is read). A partner token has no role: on a route that
 * takes sessions and partner tokens, the roles are the sessions'.
 */
export interface AuthRequirement {
  accepts: readonly CredentialKind[];
  roles?: readonly Role[];
}

/**
 * What an `/api` route without `public` or `auth` gets: an API key or a session, any role. A
 * route that forgets to say what it needs is closed, not open (the test in
 * test/plugins/auth-by-default.test.ts also fails on it).
 */
export const DEFAULT_API_AUTH: AuthRequirement = { accepts: ['api-key', 'session'] };

/** The `/api` scope: every route under it authenticates unless it says `public: true`. */
export function isApiRoute(url: string | undefined): boolean {
  return url === '/api' || (url?.startsWith('/api/') ?? false);
}

/**
 * What a route outside `/api` without `public` or `auth` gets: a session. Pages are closed by
 * default like the API: a page that forgets to declare itself asks for a signed-in person (the
 * pages' error handler turns the 401 into the sign-in page), never shows itself to anyone.
 */
export const DEFAULT_PAGE_AUTH: AuthRequirement = { accepts: ['session'] };

/**
 * Routes outside `/api` that are public by their path, because a plugin registers them (the API
 * documents, `@fastify/swagger-ui`) or a balancer and an orchestrator call them (health). Every
 * other public route says `public: true` where it is declared.
 */
export function isPublicByPath(url: string | undefined): boolean {
  return url === '/healthz' || url === '/readyz' || url === '/docs' || (url?.startsWith('/docs/') ?? false);
}

/**
 * What a route needs, from its URL and config: null for none (a public route). `auth: true` and
 * `auth: [roles]` are short for an API key or a session (with those roles). Undeclared: the API's
 * default under `/api`, a session elsewhere (unless public by path).
 */
export function authRequirementOf(
  url: string | undefined,
  config: { public?: boolean; auth?: RouteAuth } | undefined,
): AuthRequirement | null {
  if (config?.public) return null;
  const auth = config?.auth;
  if (auth === true) return DEFAULT_API_AUTH;
  if (Array.isArray(auth)) return { accepts: DEFAULT_API_AUTH.accepts, roles: auth };
  if (auth) return auth as AuthRequirement;
  if (isApiRoute(url)) return DEFAULT_API_AUTH;
  // No route matched (url undefined): the not-found handler answers, with nothing to protect.
  return url === undefined || isPublicByPath(url) ? null : DEFAULT_PAGE_AUTH;
}

/** A route's `auth`: `true` (API key or session), a role list (the same, those roles only), or the kinds in full. */
export type RouteAuth = true | readonly Role[] | AuthRequirement;

/** One registered route as the auth plugin saw it. */
export interface RouteAccess {
  method: string;
  url: string;
  declared: { public?: boolean; auth?: RouteAuth };
  /** null: no credential is asked. */
  needs: AuthRequirement | null;
}

export interface AuthOptions {
  /** How long a validated (or unknown) API key is answered from memory. Revocation takes effect within it. */
  apiKeyCacheTtlMs?: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The credentials the route accepts (see RouteAuth): `true` for an API key or a session, a role
     * list for those roles only (others get 403), or `{ accepts, roles }`. Every `/api` route
     * authenticates (API key or session) unless it says `public: true`; outside `/api` only routes
     * with `auth` do. Resolved in an onRequest hook, before validation, so a bad credential is a 401 first.
     */
    auth?: RouteAuth;
    /** No credential asked, on purpose (the SSO callback, sign-out). Never together with `auth`. */
    public?: boolean;
    /** Count this route against the caller's API-key rate limit (see plugins/rate-limit.ts). */
    rateLimited?: boolean;
  }
  interface FastifyRequest {
    /** Set by `app.authenticate`; null before it ran. */
    caller: Caller | null;
  }
  interface FastifyInstance {
    /** preHandler: resolves the caller from `x-api-key` or the session cookie, or answers 401. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** preHandler factory: authenticate, then 403 unless the caller has one of the roles. */
    requireRole: (...roles: Role[]) => (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** The session cookie's name: `lms_session_token`, or `__Host-lms_session_token` on https. */
    sessionCookieName: string;
    setSessionCookie: (reply: FastifyReply, token: string, expiresAt: Date) => void;
    clearSessionCookie: (reply: FastifyReply) => void;
    /**
     * Every route with what it declared (`public`, `auth`) and what it needs, in registration
     * order: the record the auth-by-default test reads, so no route escapes it.
     */
    routeAccess: RouteAccess[];
    /** Forget cached API-key lookups (after a revocation in this process). */
    forgetApiKey: (keyHash: string) => void;
  }
}

const INVALID_KEY = 'Invalid API key';
const NO_CREDENTIALS = 'Authentication required: send an x-api-key header or a session cookie';
const INVALID_SESSION = 'Invalid or expired session';
const API_KEY_NOT_ACCEPTED = 'This route takes a signed-in session, not an API key';
const TOUCH_EVERY_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;

/**
 * Authentication for the API. API keys are looked up by SHA-256 hash and cached in memory for a
 * few seconds (unknown keys too, so a flood of bad keys does not reach the database); sessions
 * are read from the database on every request, so sign-out and expiry take effect at once. A
 * credential that matches nothing counts against the client IP (plugins/failed-credentials.ts).
 */
export default fp<AuthOptions>(
  async (app, opts) => {
    const ttlMs = opts.apiKeyCacheTtlMs ?? 5_000;
    const secure = app.config.PUBLIC_URL.startsWith('https:');
    const cookieName = secure ? '__Host-lms_session_token' : 'lms_session_token';
    // Concurrent requests with a key not in memory share one lookup (a storefront's burst).
    const keyCache = new SharedAnswers<ApiKeyOwner | null>({ ttlMs, maxEntries: CACHE_MAX_ENTRIES, now: () => app.clock().getTime() });
    const lastTouched = new Map<number, number>();

    function ownerOfKey(keyHash: string): Promise<ApiKeyOwner | null> {
      return keyCache.get(keyHash, () => findApiKeyOwner(app.db, keyHash));
    }

    function touchKeyLater(apiKeyId: number, request: FastifyRequest) {
      const now = app.clock();
      if ((lastTouched.get(apiKeyId) ?? 0) + TOUCH_EVERY_MS > now.getTime()) return;
      lastTouched.set(apiKeyId, now.getTime());
      touchApiKey(app.db, apiKeyId, now).catch((err) => logTouchFailure(request, err, 'could not record api key use'));
    }

    // Only the configured name is a session: accepting any name ending in `session_token` (the
    // spec's wording) would let a cookie set without `Secure`, by any subdomain or plain-http page,
    // stand in for the `__Host-` one, which is what the prefix exists to prevent.
    function sessionTokenFrom(request: FastifyRequest): string | undefined {
      return request.cookies?.[cookieName] || undefined;
    }

    /** A credential that matches nothing: counted against the client IP (429 past the limit), then 401. */
    async function refuse(request: FastifyRequest, message: string): Promise<never> {
      await app.failedCredentials.record(request);
      throw new UnauthorizedError(message);
    }

    async function authenticate(request: FastifyRequest, accepts: readonly CredentialKind[] = DEFAULT_API_AUTH.accepts): Promise<void> {
      // A partner's call (a bearer token, or the gateway's credential) where partner tokens are taken;
      // on a route that also takes sessions, anything else is judged as a person's request.
      if (accepts.includes('partner-token') && (accepts.length === 1 || isPartnerCall(request)))
        return authenticatePartnerToken(app, request);
      // An API key is checked wherever it is sent: an invalid one is a 401 (and counts as a failed
      // credential) even where keys are not taken; a valid one where only sessions are (the
      // learning routes, for people not integrations) is a 403, whatever cookie comes with it.
      const apiKey = request.headers['x-api-key'];
      if (apiKey !== undefined) {
        app.failedCredentials.refuseIfOver(request);
        if (typeof apiKey !== 'string' || !isWellFormedApiKey(apiKey)) return refuse(request, INVALID_KEY);
        const keyHash = hashToken(apiKey);
        const owner = await ownerOfKey(keyHash);
        if (!owner) return refuse(request, INVALID_KEY);
        if (!accepts.includes('api-key')) throw new ForbiddenError(API_KEY_NOT_ACCEPTED);
        request.caller = { kind: 'api-key', userId: owner.userId, role: owner.role, apiKeyId: owner.apiKeyId, keyHash };
        touchKeyLater(owner.apiKeyId, request);
        return;
      }
      const token = accepts.includes('session') ? sessionTokenFrom(request) : undefined;
      if (!token) throw new UnauthorizedError(NO_CREDENTIALS);
      app.failedCredentials.refuseIfOver(request);
      const now = app.clock();
      const session = await findSession(app.db, hashToken(token), now);
      if (!session) return refuse(request, INVALID_SESSION);
      request.caller = { kind: 'session', userId: session.userId, role: session.role, sessionTokenHash: session.tokenHash };
      if (session.lastSeenAt.getTime() + TOUCH_EVERY_MS < now.getTime()) {
        touchSession(app.db, session.tokenHash, now).catch((err) => logTouchFailure(request, err, 'could not touch session'));
      }
    }

    app.decorateRequest('caller', null);
    // A route that cannot be what it says is refused at registration, not at its first request.
    const routeAccess: RouteAccess[] = [];
    app.decorate('routeAccess', routeAccess);
    app.addHook('onRoute', (route) => {
      const config = route.config as { public?: boolean; auth?: RouteAuth } | undefined;
      const where = `${route.method} ${route.url}`;
      if (config?.public && config.auth) throw new Error(`${where}: a route is either public or authenticated, not both`);
      const need = authRequirementOf(route.url, config);
      if (need?.accepts.length === 0) throw new Error(`${where}: auth.accepts names no credential kind`);
      // A partner token has no role, and shares a route only with sessions (the authoring routes): never with API keys.
      // Roles on such a route are the sessions' (a partner's right is its binding, checked by the route).
      if (need?.accepts.includes('partner-token') && need.accepts.some((k) => k !== 'partner-token' && k !== 'session')) {
        throw new Error(`${where}: a partner token has no role and is mixed with sessions only`);
      }
      if (need?.roles && need.accepts.length === 1 && need.accepts[0] === 'partner-token') {
        throw new Error(`${where}: a partner token has no role: roles need sessions or API keys`);
      }
      for (const method of [route.method].flat()) {
        routeAccess.push({ method, url: route.url, declared: { public: config?.public, auth: config?.auth }, needs: need });
      }
    });
    // The /api scope authenticates by default (fastify/demo does it with a folder-level hook; here
    // the routes keep their full paths, so the scope is the URL). This hook runs before any
    // route-level hook and before the rate limiter's, which is registered after this plugin.
    app.addHook('onRequest', async (request) => {
      const need = authRequirementOf(request.routeOptions.url, request.routeOptions.config);
      if (!need) return;
      await authenticate(request, need.accepts);
      const roles = need.roles;
      // Before the body is read: a person without the role is refused whatever they send. A
      // partner's token (no caller, no role) is judged by its binding, in the route.
      const caller = request.caller;
      if (roles && !request.partnerToken && !(caller && roles.includes(caller.role))) {
        throw new ForbiddenError(`This needs one of the roles: ${roles.join(', ')}`);
      }
    });
    app.decorate('authenticate', async (request: FastifyRequest) => authenticate(request));
    app.decorate('requireRole', (...roles: Role[]) => async (request: FastifyRequest) => {
      if (!request.caller) await authenticate(request);
      // biome-ignore lint/style/noNonNullAssertion: authenticate() sets caller or throws.
      if (!roles.includes(request.caller!.role)) throw new ForbiddenError(`This needs one of the roles: ${roles.join(', ')}`);
    });
    app.decorate('sessionCookieName', cookieName);
    app.decorate('setSessionCookie', (reply: FastifyReply, token: string, expiresAt: Date) => {
      reply.setCookie(cookieName, token, { path: '/', httpOnly: true, sameSite: 'lax', secure, expires: expiresAt });
    });
    app.decorate('clearSessionCookie', (reply: FastifyReply) => {
      reply.clearCookie(cookieName, { path: '/', httpOnly: true, sameSite: 'lax', secure });
    });
    app.decorate('forgetApiKey', (keyHash: string) => {
      keyCache.delete(keyHash);
    });
  },
  { name: 'auth', dependencies: ['database', '@fastify/cookie', 'failed-credentials', 'partner-auth'] },
);

/** A request that presents itself as a partner's, forwarded by the gateway: a bearer token or the gateway's credential. */
function isPartnerCall(request: FastifyRequest): boolean {
  return request.headers['x-gateway-secret'] !== undefined || /^Bearer\s/i.test(request.headers.authorization ?? '');
}

/** A background write that failed: a warning, unless the database is away (that is logged once, by the database plugin). */
function logTouchFailure(request: FastifyRequest, err: unknown, message: string) {
  request.log[isDatabaseUnavailable(err) ? 'debug' : 'warn']({ err }, message);
}
