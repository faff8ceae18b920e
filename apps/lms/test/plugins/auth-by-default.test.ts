import t, { type Test } from 'tap';
import type { LmsApp } from '../../src/app.js';
import { isApiRoute, isPublicByPath } from '../../src/plugins/auth.js';
import { buildTestApp } from '../helpers/app.js';
import { TEST_GATEWAY_SECRET } from '../helpers/course-creation.js';
import { apiKeyFor, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

/**
 * The /api scope authenticates by default (issue 16, point 2). Every route is listed as the auth
 * plugin's onRoute hook saw it; an /api route must say `public: true` or what it accepts, and
 * the few public ones are named here, so making a route public is a visible change to this file.
 */
const PUBLIC_API_ROUTES = ['GET /api/auth/sso/callback', 'POST /api/auth/sign-out', 'POST /api/auth/sso/callback'];

/** /api routes (HEAD twins aside) that declare neither `public` nor `auth`. */
function undeclaredApiRoutes(app: LmsApp): string[] {
  return app.routeAccess
    .filter((r) => isApiRoute(r.url) && r.method !== 'HEAD')
    .filter((r) => r.declared.public !== true && r.declared.auth === undefined)
    .map((r) => `${r.method} ${r.url}`);
}

const FORGOTTEN_ROUTES = ['GET /api/admin/export-users', 'POST /api/admin/promote'];

/** An app on which someone added /api routes and forgot to say who may call them. */
async function appWithForgottenRoutes(t: Test) {
  const { app } = await buildTestApp(t);
  app.get('/api/admin/export-users', async () => ({ users: ['every e-mail address'] }));
  app.post('/api/admin/promote', async () => ({ promoted: true }));
  await app.ready();
  return app;
}

t.test('every /api route of the LMS is public by name or says which credentials it accepts', async (t) => {
  const { app } = await buildTestApp(t);
  // A route that is both public and authenticated, mixes a partner token with API keys, or asks a
  // partner token alone for a role, is refused at registration. With sessions, roles are the sessions'.
  t.throws(() => app.get('/api/both', { config: { public: true, auth: true } }, async () => ({})), /either public or authenticated/);
  t.throws(() => app.get('/api/mixed', { config: { auth: { accepts: ['partner-token', 'api-key'] } } }, async () => ({})), /partner token/);
  t.throws(
    () => app.get('/api/roles', { config: { auth: { accepts: ['partner-token'], roles: ['admin'] } } }, async () => ({})),
    /partner token has no role/,
  );
  t.doesNotThrow(() =>
    app.get('/api/session-roles', { config: { auth: { accepts: ['partner-token', 'session'], roles: ['admin'] } } }, async () => ({})),
  );
  await app.ready();
  const api = app.routeAccess.filter((r) => isApiRoute(r.url) && r.method !== 'HEAD');
  t.ok(api.length >= 8, `the listing sees the /api routes (${api.length})`);
  t.same(undeclaredApiRoutes(app), [], 'no /api route leaves its access undeclared');
  const publicOnes = api.filter((r) => r.needs === null).map((r) => `${r.method} ${r.url}`);
  t.same(publicOnes.sort(), [...PUBLIC_API_ROUTES].sort(), 'only the named routes are public');

  // Through HTTP: each non-public /api route refuses a request without credentials.
  for (const route of api.filter((r) => r.needs !== null)) {
    const url = route.url.replace(/:[A-Za-z]+/g, '1');
    const res = await app.inject({ method: route.method as 'GET', url });
    if (route.needs!.accepts.includes('partner-token') && route.needs!.accepts.includes('session')) {
      // Authoring routes (sessions or partners): no credential at all is a 401; the gateway's credential without a bearer token, 401.
      t.equal(res.statusCode, 401, `${route.method} ${route.url} without credentials`);
      const viaGateway = await app.inject({ method: route.method as 'GET', url, headers: { 'x-gateway-secret': TEST_GATEWAY_SECRET } });
      t.equal(viaGateway.statusCode, 401, `${route.method} ${route.url} through the gateway without a bearer token`);
    } else if (route.needs!.accepts.includes('partner-token')) {
      // Partner routes: not through the gateway is a 403; through it without a bearer token, 401.
      t.equal(res.statusCode, 403, `${route.method} ${route.url} without the gateway's credential`);
      const viaGateway = await app.inject({ method: route.method as 'GET', url, headers: { 'x-gateway-secret': TEST_GATEWAY_SECRET } });
      t.equal(viaGateway.statusCode, 401, `${route.method} ${route.url} without a bearer token`);
    } else {
      t.equal(res.statusCode, 401, `${route.method} ${route.url} without credentials`);
      t.equal(res.json().success, false);
    }
  }
});

t.test('attacker: a newly registered /api route without config refuses anonymous and forged callers', async (t) => {
  const app = await appWithForgottenRoutes(t);
  t.same(undeclaredApiRoutes(app), FORGOTTEN_ROUTES, 'the listing fails on them');
  const student = await makeUser(app.db, { role: 'student' });
  const studentCookie = await sessionCookieFor(app, student.id);
  const teacher = await makeUser(app.db, { role: 'teacher' });
  const key = await apiKeyFor(app.db, teacher.id);

  for (const attempt of [
    { label: 'no credentials', headers: {} },
    { label: 'a made-up API key', headers: { 'x-api-key': `lms_key_${'A'.repeat(43)}` } },
    { label: 'a made-up session', headers: { cookie: `${app.sessionCookieName}=forged-session-token` } },
    { label: 'a bearer token (not accepted here)', headers: { authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.' } },
    { label: 'the gateway secret (not accepted here)', headers: { 'x-gateway-secret': TEST_GATEWAY_SECRET } },
  ]) {
    const get = await app.inject({ url: '/api/admin/export-users', headers: attempt.headers });
    t.equal(get.statusCode, 401, `GET with ${attempt.label}`);
    t.notMatch(get.body, /e-mail address/, 'nothing of the handler leaks');
    t.equal(get.json().success, false);
    const post = await app.inject({ method: 'POST', url: '/api/admin/promote', headers: attempt.headers, payload: {} });
    t.equal(post.statusCode, 401, `POST with ${attempt.label}`);
    t.notMatch(post.body, /promoted/);
  }

  // The default is "an API key or a session": a real one gets through (roles are for the route to narrow).
  t.equal((await app.inject({ url: '/api/admin/export-users', headers: { 'x-api-key': key } })).statusCode, 200);
  t.equal((await app.inject({ url: '/api/admin/export-users', headers: { cookie: studentCookie } })).statusCode, 200);
});

t.test(
  "attacker: an integration's API key on every session-only route (the learning routes) is a 403, with a member's cookie beside it too; a made-up key is a 401",
  async (t) => {
    const { app } = await buildTestApp(t);
    await app.ready();
    const teacher = await makeUser(app.db, { role: 'teacher' });
    const student = await makeUser(app.db, { role: 'student' });
    const key = await apiKeyFor(app.db, teacher.id);
    const studentCookie = await sessionCookieFor(app, student.id);
    const sessionOnly = app.routeAccess.filter(
      (r) => isApiRoute(r.url) && r.method !== 'HEAD' && r.needs?.accepts.length === 1 && r.needs.accepts[0] === 'session',
    );
    t.ok(sessionOnly.length >= 10, `the learning routes are session-only (${sessionOnly.length})`);
    t.ok(
      sessionOnly.every((r) => r.url.startsWith('/api/learning/')),
      'and only they',
    );
    for (const route of sessionOnly) {
      const url = route.url.replace(/:[A-Za-z]+/g, '1');
      const method = route.method as 'GET';
      const byKey = await app.inject({ method, url, headers: { 'x-api-key': key } });
      t.equal(byKey.statusCode, 403, `${route.method} ${route.url} with a real API key`);
      t.match(byKey.json(), { success: false, error: /session, not an API key/ });
      // The key is looked at first: a cookie sent along does not turn the integration into a person.
      const both = await app.inject({ method, url, headers: { 'x-api-key': key, cookie: studentCookie, 'x-requested-with': 'x' } });
      t.equal(both.statusCode, 403, `${route.method} ${route.url} with a real API key and a session cookie`);
      const forged = await app.inject({ method, url, headers: { 'x-api-key': `lms_key_${'B'.repeat(43)}` } });
      t.equal(forged.statusCode, 401, `${route.method} ${route.url} with a made-up API key`);
    }
  },
);

/**
 * Pages are closed by default too (issue 31): a route outside /api says `public: true` or what it
 * needs, or is public by its path (the API documents and health, named in plugins/auth.ts). The
 * public pages are named here, so opening a page is a visible change to this file.
 */
const PUBLIC_PAGES = [
  'GET /',
  'GET /.well-known/jwks.json',
  'GET /certificates',
  'GET /certificates/:code',
  'GET /credentials/institutions/:id',
  'GET /credentials/keys/:kid',
  'GET /credentials/issuer',
  'GET /credentials/status/:n',
  'GET /dashboard/assets/chapter-time.js',
  'GET /dashboard/assets/dashboard.css',
  'GET /dashboard/assets/dashboard.js',
  'GET /dashboard/assets/studio-editor.css',
  'GET /dashboard/assets/studio-editor.js',
  'GET /media/pictures/:name',
  'GET /notifications/unsubscribe',
  'POST /notifications/unsubscribe',
  'GET /sign-in',
  'GET /sso/verify',
  'POST /language',
  // Meta's status webhooks: the credential is the signature (test/notifications/whatsapp/webhook-route.test.ts).
  'GET /webhooks/whatsapp',
  'POST /webhooks/whatsapp',
];

t.test('every route outside /api declares itself or is public by its path; the public pages are named', async (t) => {
  const { app } = await buildTestApp(t);
  await app.ready();
  const pages = app.routeAccess.filter((r) => !isApiRoute(r.url) && r.method !== 'HEAD' && !isPublicByPath(r.url));
  t.ok(pages.length >= 30, `the listing sees the pages (${pages.length})`);
  t.same(
    pages.filter((r) => r.declared.public !== true && r.declared.auth === undefined).map((r) => `${r.method} ${r.url}`),
    [],
    'no page leaves its access undeclared',
  );
  t.same(
    pages
      .filter((r) => r.needs === null)
      .map((r) => `${r.method} ${r.url}`)
      .sort(),
    [...PUBLIC_PAGES].sort(),
    'only the named pages are public',
  );
});

t.test('attacker: a page route registered without a declaration shows nothing to an anonymous caller', async (t) => {
  const { app } = await buildTestApp(t);
  app.get('/reports/every-member', async () => 'every member with their e-mail');
  await app.ready();
  const student = await makeUser(app.db, { role: 'student' });
  const anonymous = await app.inject({ url: '/reports/every-member' });
  t.equal(anonymous.statusCode, 401, 'closed by default');
  t.notMatch(anonymous.body, 'every member');
  t.same(
    app.routeAccess.filter((r) => r.url === '/reports/every-member' && r.method === 'GET').map((r) => r.needs),
    [{ accepts: ['session'] }],
    'a session is what it asks for',
  );
  const signedIn = await app.inject({ url: '/reports/every-member', headers: { cookie: await sessionCookieFor(app, student.id) } });
  t.equal(signedIn.statusCode, 200, 'a signed-in person gets through (the route narrows roles itself)');
  t.equal((await app.inject({ url: '/no/such/page' })).statusCode, 404, 'an unknown URL is still a 404, not a 401');
});
