import { webhookEndpoints } from '@lms/db';
import t from 'tap';
import { drain, eventsWorld, receiver } from '../partner-events/fixtures.js';

// /dashboard/webhooks: super_admin only; add (secret shown once), rotate, disable, enable,
// replay since a time, the delivery log with the replay of one event; both languages.

const ORIGIN = 'http://localhost:3000';

t.test('the webhooks page', async (t) => {
  const w = await eventsWorld(t);
  const { cast } = w;
  const a = await receiver(t);
  const get = (url: string, cookie: string, lang = 'en') =>
    w.app.inject({ method: 'GET', url, headers: { cookie, 'accept-language': lang } });
  const post = (url: string, cookie: string, body: string, origin = ORIGIN) =>
    w.app.inject({ method: 'POST', url, headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' }, payload: body });

  for (const [who, cookie] of [
    ['an institution admin', cast.admin.cookie],
    ['a teacher', cast.teacher.cookie],
    ['a learner', cast.learner.cookie],
  ] as const) {
    t.equal((await get('/dashboard/webhooks', cookie)).statusCode, 403, `${who}: 403`);
    t.equal(
      (await post('/dashboard/webhooks', cookie, `issuer=a.example.org&url=${encodeURIComponent(a.url)}`)).statusCode,
      403,
      `${who} adding: 403`,
    );
  }
  t.equal((await w.app.inject({ method: 'GET', url: '/dashboard/webhooks' })).statusCode, 302, 'no session: to sign-in');

  t.match((await get('/dashboard', cast.superAdmin.cookie)).body, 'href="/dashboard/webhooks"', "super_admin's dashboard links to it");
  t.notMatch((await get('/dashboard', cast.admin.cookie)).body, 'href="/dashboard/webhooks"', "an admin's does not");
  const empty = await get('/dashboard/webhooks', cast.superAdmin.cookie);
  t.equal(empty.statusCode, 200);
  t.match(empty.body, 'No endpoints yet');
  t.match((await get('/dashboard/webhooks', cast.superAdmin.cookie, 'id')).body, 'Belum ada endpoint');

  t.equal(
    (
      await post(
        '/dashboard/webhooks',
        cast.superAdmin.cookie,
        `issuer=a.example.org&url=${encodeURIComponent(a.url)}`,
        'https://evil.example',
      )
    ).statusCode,
    403,
    'a cross-site form: 403',
  );
  const bad = await post('/dashboard/webhooks', cast.superAdmin.cookie, 'issuer=a.example.org&url=ftp%3A%2F%2Fx');
  t.match(bad.headers.location, /done=invalid/);
  const unknown = await post('/dashboard/webhooks', cast.superAdmin.cookie, `issuer=nobody.example&url=${encodeURIComponent(a.url)}`);
  t.match(unknown.headers.location, /done=invalid/);
  t.equal((await w.db.db.select().from(webhookEndpoints)).length, 0, 'nothing added by the refusals');

  const added = await post(
    '/dashboard/webhooks',
    cast.superAdmin.cookie,
    `issuer=a.example.org&url=${encodeURIComponent(a.url)}&event=all`,
  );
  t.equal(added.statusCode, 200);
  const secret = added.body.match(/whsec_[A-Za-z0-9+/=]+/)?.[0];
  t.ok(secret, 'the secret is shown');
  const [row] = await w.db.db.select().from(webhookEndpoints);
  t.equal(row!.secret, secret, 'it is the stored one');
  const listed = await get('/dashboard/webhooks', cast.superAdmin.cookie);
  t.notMatch(listed.body, /whsec_/, 'never shown again');
  t.match(listed.body, a.url);

  await w.enrol(w.course.id, cast.learner.cookie);
  await drain(w.app, w.db.db);
  t.equal(a.got.length, 1);
  const log = await get(`/dashboard/webhooks/${row!.id}`, cast.superAdmin.cookie);
  t.equal(log.statusCode, 200);
  t.match(log.body, 'enrollment.created');
  t.match(log.body, String(a.got[0]!.headers['webhook-id']));
  t.equal((await get(`/dashboard/webhooks/${row!.id}`, cast.admin.cookie)).statusCode, 403, 'an admin cannot read the log');
  t.equal((await get('/dashboard/webhooks/999999', cast.superAdmin.cookie)).statusCode, 404);

  const one = await post(`/dashboard/webhooks/${row!.id}/replay`, cast.superAdmin.cookie, `event=${a.got[0]!.headers['webhook-id']}`);
  t.match(one.headers.location, /done=replayed/);
  await drain(w.app, w.db.db);
  t.equal(a.got.length, 2, 'replayed once');
  t.equal(a.got[1]!.headers['webhook-id'], a.got[0]!.headers['webhook-id']);
  t.match(
    (await post(`/dashboard/webhooks/${row!.id}/replay`, cast.superAdmin.cookie, 'since=yesterday')).headers.location,
    /done=invalid/,
  );
  t.match(
    (await post(`/dashboard/webhooks/${row!.id}/replay`, cast.superAdmin.cookie, 'since=2000-01-01T00:00')).headers.location,
    /done=replayed/,
  );
  await drain(w.app, w.db.db);
  t.equal(a.got.length, 3);

  const rotated = await post(`/dashboard/webhooks/${row!.id}/rotate`, cast.superAdmin.cookie, '');
  const fresh = rotated.body.match(/whsec_[A-Za-z0-9+/=]+/)?.[0];
  t.ok(fresh && fresh !== secret, 'a new secret, shown once');
  t.match((await post(`/dashboard/webhooks/${row!.id}/disable`, cast.superAdmin.cookie, '')).headers.location, /done=disabled/);
  t.match((await get('/dashboard/webhooks', cast.superAdmin.cookie)).body, /Disabled: disabled by/);
  t.match((await get('/dashboard/webhooks', cast.superAdmin.cookie, 'id')).body, /Nonaktif: disabled by/);
  t.match((await post(`/dashboard/webhooks/${row!.id}/enable`, cast.superAdmin.cookie, '')).headers.location, /done=enabled/);
  t.equal((await post(`/dashboard/webhooks/${row!.id}/disable`, cast.admin.cookie, '')).statusCode, 403, 'an admin cannot disable');
  t.equal((await post('/dashboard/webhooks/999999/rotate', cast.superAdmin.cookie, '')).statusCode, 404);
});
