import { randomBytes } from 'node:crypto';
import { API_KEY_SHOWN_ONCE_WARNING } from '@lms/contracts';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/clock.js';
import { apiKeyFor, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

/** Teacher API keys ("Kunci API") through HTTP: who may, create once, list, revoke, CSRF. */
const AJAX = { 'x-requested-with': 'XMLHttpRequest' };

t.test('API keys', async (t) => {
  const time = manualClock();
  const { app, db } = await buildTestApp(t, { deps: { clock: time.clock } });
  app.get('/whoami', { config: { auth: true } }, async (request) => ({ userId: request.caller!.userId }));
  await app.ready();

  const teacher = await makeUser(app.db, { role: 'teacher' });
  const otherTeacher = await makeUser(app.db, { role: 'teacher' });
  const teacherCookie = await sessionCookieFor(app, teacher.id);
  const otherCookie = await sessionCookieFor(app, otherTeacher.id);
  const withKey = (key: string) => app.inject({ url: '/whoami', headers: { 'x-api-key': key } });
  const create = (cookie: string, name: unknown, headers: Record<string, string> = AJAX) =>
    app.inject({ method: 'POST', url: '/api/api-keys', headers: { cookie, ...headers }, payload: { name } });
  const list = (cookie: string) => app.inject({ url: '/api/api-keys', headers: { cookie } });
  const revoke = (cookie: string, id: number | string, headers: Record<string, string> = AJAX) =>
    app.inject({ method: 'DELETE', url: `/api/api-keys/${id}`, headers: { cookie, ...headers } });

  t.test('a teacher with a session creates a key, sees it once, and it works', async (t) => {
    const res = await create(teacherCookie, 'Integrasi situs');
    t.equal(res.statusCode, 201);
    const body = res.json();
    t.equal(body.success, true);
    t.equal(body.warning, API_KEY_SHOWN_ONCE_WARNING);
    t.match(body.apiKey.key, /^lms_key_[A-Za-z0-9_-]{43}$/);
    t.equal(body.apiKey.prefix, body.apiKey.key.slice(0, 14));
    t.equal(body.apiKey.name, 'Integrasi situs');
    t.equal(body.apiKey.revokedAt, null);
    t.equal(body.apiKey.lastUsedAt, null);
    t.equal(body.apiKey.createdAt, new Date(body.apiKey.createdAt).toISOString());

    const used = await withKey(body.apiKey.key);
    t.equal(used.statusCode, 200);
    t.same(used.json(), { userId: teacher.id }, 'the key identifies its teacher');

    const listed = await list(teacherCookie);
    t.equal(listed.statusCode, 200);
    const entry = listed.json().apiKeys.find((k: { id: number }) => k.id === body.apiKey.id);
    t.ok(entry, 'the new key is listed');
    t.notOk('key' in entry, 'the list never shows the key itself');
    t.notOk(JSON.stringify(listed.json()).includes(body.apiKey.key), 'nor anywhere in the list');
    t.same(Object.keys(entry).sort(), ['createdAt', 'id', 'lastUsedAt', 'name', 'prefix', 'revokedAt']);
  });

  t.test("the list holds only the caller's keys, newest first, revoked ones included", async (t) => {
    const a = (await create(otherCookie, 'first')).json().apiKey;
    const b = (await create(otherCookie, 'second')).json().apiKey;
    t.equal((await revoke(otherCookie, a.id)).statusCode, 200);
    const keys = (await list(otherCookie)).json().apiKeys;
    t.same(
      keys.map((k: { id: number }) => k.id),
      [b.id, a.id],
    );
    t.not(keys[1].revokedAt, null);
    const mine = (await list(teacherCookie)).json().apiKeys;
    t.notOk(
      mine.some((k: { id: number }) => k.id === a.id || k.id === b.id),
      "another teacher's keys are not listed",
    );
  });

  t.test('the name is 1 to 100 characters', async (t) => {
    for (const bad of ['', '   ', 'x'.repeat(101), 42, null]) {
      const res = await create(teacherCookie, bad);
      t.equal(res.statusCode, 400, `name ${JSON.stringify(bad)?.slice(0, 20)}`);
      t.equal(res.json().success, false);
      t.match(res.json().error, /name/);
    }
    const missing = await app.inject({ method: 'POST', url: '/api/api-keys', headers: { cookie: teacherCookie, ...AJAX }, payload: {} });
    t.equal(missing.statusCode, 400);
    t.match(missing.json().error, /name/);
    t.equal((await create(teacherCookie, 'x')).statusCode, 201);
    t.equal((await create(teacherCookie, 'y'.repeat(100))).statusCode, 201);
  });

  t.test('revoking: at once in this process, with the same 401 as an unknown key; 404 when not yours or done', async (t) => {
    const created = (await create(teacherCookie, 'to revoke')).json().apiKey;
    t.equal((await withKey(created.key)).statusCode, 200, 'works, and is now in the auth cache');

    const notMine = await revoke(otherCookie, created.id);
    t.equal(notMine.statusCode, 404, 'another teacher cannot revoke it');
    t.same(notMine.json(), { success: false, error: 'API key not found' });
    t.equal((await withKey(created.key)).statusCode, 200, 'and it still works');

    const res = await revoke(teacherCookie, created.id);
    t.equal(res.statusCode, 200);
    t.equal(res.json().apiKey.id, created.id);
    t.equal(res.json().apiKey.revokedAt, time.clock().toISOString());
    t.notOk('key' in res.json().apiKey);

    const refused = await withKey(created.key);
    t.equal(refused.statusCode, 401, 'refused at once, though it was cached');
    const unknown = await withKey(`lms_key_${randomBytes(32).toString('base64url')}`);
    t.equal(unknown.statusCode, 401);
    t.same(refused.json(), unknown.json(), 'the same body as an unknown key');
    t.same(refused.json(), { success: false, error: 'Invalid API key' });

    t.equal((await revoke(teacherCookie, created.id)).statusCode, 404, 'already revoked');
    t.equal((await revoke(teacherCookie, 2_000_000_000)).statusCode, 404, 'unknown id');
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999']) {
      const res = await revoke(teacherCookie, bad);
      t.equal(res.statusCode, 400, `id ${bad}`);
      t.match(res.json().error, /id/);
    }
  });

  t.test('on another instance a revoked key works until its cache entry expires (5 s), then 401', async (t) => {
    const { app: other } = await buildTestApp(t, { deps: { clock: time.clock }, db });
    other.get('/whoami', { config: { auth: true } }, async () => ({ ok: true }));
    await other.ready();
    const created = (await create(teacherCookie, 'seen elsewhere')).json().apiKey;
    const onOther = () => other.inject({ url: '/whoami', headers: { 'x-api-key': created.key } });
    t.equal((await onOther()).statusCode, 200, 'the other instance caches the key');
    t.equal((await revoke(teacherCookie, created.id)).statusCode, 200);
    t.equal((await onOther()).statusCode, 200, 'still cached there right after');
    time.set(time.ms + 5_001);
    t.equal((await onOther()).statusCode, 401, 'refused once the cache entry expired');
  });

  t.test('who may: 401 without credentials, 403 for other roles and for API-key callers', async (t) => {
    for (const [method, url] of [
      ['GET', '/api/api-keys'],
      ['POST', '/api/api-keys'],
      ['DELETE', '/api/api-keys/1'],
    ] as const) {
      const res = await app.inject({ method, url, headers: AJAX, ...(method === 'POST' ? { payload: { name: 'x' } } : {}) });
      t.equal(res.statusCode, 401, `${method} ${url} without credentials`);
      t.equal(res.json().success, false);
    }
    for (const role of ['student', 'admin', 'super_admin'] as const) {
      const user = await makeUser(app.db, { role });
      const cookie = await sessionCookieFor(app, user.id);
      t.equal((await list(cookie)).statusCode, 403, `${role} cannot list`);
      t.equal((await create(cookie, 'x')).statusCode, 403, `${role} cannot create`);
      t.equal((await revoke(cookie, 1)).statusCode, 403, `${role} cannot revoke`);
    }
    const key = await apiKeyFor(app.db, teacher.id);
    const keyHeaders = { 'x-api-key': key, ...AJAX };
    const viaKey = [
      await app.inject({ url: '/api/api-keys', headers: keyHeaders }),
      await app.inject({ method: 'POST', url: '/api/api-keys', headers: keyHeaders, payload: { name: 'minted by a key' } }),
      await app.inject({ method: 'DELETE', url: '/api/api-keys/1', headers: keyHeaders }),
    ];
    t.same(
      viaKey.map((r) => r.statusCode),
      [403, 403, 403],
      "a teacher's API key cannot list, mint or revoke keys",
    );
    t.match(viaKey[1]!.json().error, /session/);
    const names = (await list(teacherCookie)).json().apiKeys.map((k: { name: string }) => k.name);
    t.notOk(names.includes('minted by a key'));
  });

  t.test('CSRF: a cross-site form post or fetch cannot create or revoke a key', async (t) => {
    const before = (await list(teacherCookie)).json().apiKeys.length;
    const formPost = await app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: { cookie: teacherCookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      payload: 'name=planted',
    });
    t.equal(formPost.statusCode, 403, 'a form post from another site');
    t.equal(formPost.json().success, false);
    const formNoOrigin = await app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: { cookie: teacherCookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=planted',
    });
    t.equal(formNoOrigin.statusCode, 403, 'a form post without Origin');
    t.match(formNoOrigin.json().error, /x-requested-with/);
    t.equal((await create(teacherCookie, 'planted', {})).statusCode, 403, 'JSON without the header');
    const foreign = await create(teacherCookie, 'planted', { ...AJAX, origin: 'https://evil.example' });
    t.equal(foreign.statusCode, 403, 'the header from a foreign origin');
    t.match(foreign.json().error, /Origin/);
    t.equal((await list(teacherCookie)).json().apiKeys.length, before, 'no key was created');

    const own = await create(teacherCookie, 'from our page', { ...AJAX, origin: 'http://localhost:3000' });
    t.equal(own.statusCode, 201, 'our own origin with the header is accepted');
    const { id, key } = own.json().apiKey;
    const noHeader = await revoke(teacherCookie, id, {});
    t.equal(noHeader.statusCode, 403, 'a revoke without the header');
    const foreignRevoke = await revoke(teacherCookie, id, { ...AJAX, origin: 'https://evil.example' });
    t.equal(foreignRevoke.statusCode, 403, 'a revoke from a foreign origin');
    t.equal((await withKey(key)).statusCode, 200, 'the key still works');
    t.equal((await list(teacherCookie)).json().apiKeys.find((k: { id: number }) => k.id === id).revokedAt, null);
  });

  t.test('the routes are in the OpenAPI document with their errors', async (t) => {
    const doc = (await app.inject('/docs/json')).json();
    t.same(Object.keys(doc.paths['/api/api-keys'].get.responses).sort(), ['200', '401', '403', '429', '503']);
    t.same(Object.keys(doc.paths['/api/api-keys'].post.responses).sort(), ['201', '400', '401', '403', '429', '503']);
    t.same(Object.keys(doc.paths['/api/api-keys/{id}'].delete.responses).sort(), ['200', '400', '401', '403', '404', '429', '503']);
    t.match(doc.paths['/api/api-keys/{id}'].delete.description, /cache/);
  });
});
