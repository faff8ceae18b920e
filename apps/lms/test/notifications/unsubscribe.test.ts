import { notificationPreferences, notificationSettings } from '@lms/db';
import { and, eq } from 'drizzle-orm';
import t from 'tap';
import { linkSecret, unsubscribeToken, unsubscribeUrl, verifyUnsubscribeToken } from '../../src/notifications/links.js';
import { buildTestApp } from '../helpers/app.js';
import { makeUser } from '../helpers/fixtures.js';

// The one-click unsubscribe link as an attacker meets it: no session is needed, and nothing but a
// token made with the deployment's key, for that person, switches anything off.

t.test('unsubscribe links', async (t) => {
  const { app, db: testDb } = await buildTestApp(t);
  const db = testDb.db;
  const secret = linkSecret(app.config)!;
  t.ok(secret, 'a key derived from GATEWAY_SECRET');
  const person = await makeUser(db, { role: 'student', name: 'Siti' });
  const victim = await makeUser(db, { role: 'student', name: 'Victim' });
  await db.insert(notificationSettings).values({ userId: person.id, locale: 'en' });
  const offFor = async (userId: string) =>
    (
      await db
        .select()
        .from(notificationPreferences)
        .where(and(eq(notificationPreferences.userId, userId), eq(notificationPreferences.enabled, false)))
    ).map((p) => `${p.kind} ${p.channel}`);
  const oneClick = (url: string) =>
    app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
  const path = (url: string) => url.replace('http://localhost:3000', '');

  await t.test('GET asks, in the person language; POST One-Click switches one kind on one channel off', async (t) => {
    const url = unsubscribeUrl(app.config.PUBLIC_URL, secret, { userId: person.id, kind: 'course.inactive', channel: 'email' });
    t.match(url, /^http:\/\/localhost:3000\/notifications\/unsubscribe\?token=/);
    const ask = await app.inject({ method: 'GET', url: path(url) });
    t.equal(ask.statusCode, 200);
    t.match(ask.body, /<html lang="en">/);
    t.match(ask.body, /Stop receiving &quot;Study reminder&quot; by E-mail\?/);
    t.same(await offFor(person.id), [], 'opening the link changes nothing (a link scanner)');
    const done = await oneClick(path(url));
    t.equal(done.statusCode, 200, 'RFC 8058: 200');
    t.match(done.body, /You no longer receive &quot;Study reminder&quot; by E-mail\./);
    t.same(await offFor(person.id), ['course.inactive email']);
    t.equal((await oneClick(path(url))).statusCode, 200, 'again: still off, still 200');
    t.same(await offFor(person.id), ['course.inactive email']);
    const indonesian = await app.inject({
      method: 'GET',
      url: path(unsubscribeUrl(app.config.PUBLIC_URL, secret, { userId: victim.id, kind: 'course.ending', channel: 'whatsapp' })),
    });
    t.match(indonesian.body, /<html lang="id">/, 'no settings: Indonesian');
    t.match(indonesian.body, /Berhenti menerima &quot;Kursus hampir berakhir&quot; lewat WhatsApp\?/);
  });

  await t.test('forged, altered and other keys: 400 in the error shape, nobody unsubscribed', async (t) => {
    const good = unsubscribeToken(secret, { userId: person.id, kind: 'course.ending', channel: 'email' });
    const [payload, mac] = good.split('.') as [string, string];
    // The victim's id in a payload signed for someone else.
    const swapped = `${Buffer.from(JSON.stringify([victim.id, 'course.ending', 'email'])).toString('base64url')}.${mac}`;
    const otherKey = unsubscribeToken('another-deployment-key-of-32-characters!', {
      userId: victim.id,
      kind: 'course.ending',
      channel: 'email',
    });
    const flipped = `${payload}.${mac.slice(0, -2)}${mac.endsWith('AA') ? 'AB' : 'AA'}`;
    for (const [name, token] of [
      ['a payload swapped to another person', swapped],
      ['signed with another key', otherKey],
      ['a changed signature', flipped],
      ['no signature', payload],
      ['garbage', 'not-a-token'],
    ] as const) {
      for (const method of ['GET', 'POST'] as const) {
        const res =
          method === 'GET'
            ? await app.inject({ method, url: `/notifications/unsubscribe?token=${encodeURIComponent(token)}` })
            : await oneClick(`/notifications/unsubscribe?token=${encodeURIComponent(token)}`);
        t.equal(res.statusCode, 400, `${name}, ${method}: 400`);
        t.match(res.json(), { success: false, error: /not valid/ }, 'the documented error shape');
      }
    }
    t.same(await offFor(victim.id), [], 'the victim keeps every notification');
    t.equal((await app.inject({ method: 'GET', url: '/notifications/unsubscribe' })).statusCode, 400, 'no token: 400');
  });

  await t.test('receipts cannot be switched off; a POST needs the One-Click body; a gone person is 404', async (t) => {
    t.throws(() => unsubscribeToken(secret, { userId: person.id, kind: 'purchase.paid', channel: 'email' }), /receipt/);
    // A token for a receipt made with the key anyway (by hand) is refused as well.
    const { createHmac } = await import('node:crypto');
    const payload = Buffer.from(JSON.stringify([person.id, 'purchase.paid', 'email'])).toString('base64url');
    const forged = `${payload}.${createHmac('sha256', secret).update(payload).digest('base64url')}`;
    t.equal(verifyUnsubscribeToken(secret, forged), null);
    t.equal((await oneClick(`/notifications/unsubscribe?token=${forged}`)).statusCode, 400);
    t.notOk((await offFor(person.id)).includes('purchase.paid email'));

    const url = path(unsubscribeUrl(app.config.PUBLIC_URL, secret, { userId: person.id, kind: 'digest.admin', channel: 'email' }));
    const wrongBody = await app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=Yes',
    });
    t.equal(wrongBody.statusCode, 400);
    t.notOk((await offFor(person.id)).includes('digest.admin email'));

    const gone = await makeUser(db, { role: 'student' });
    const goneUrl = path(unsubscribeUrl(app.config.PUBLIC_URL, secret, { userId: gone.id, kind: 'digest.admin', channel: 'email' }));
    await db.execute(`delete from users where id = '${gone.id}'`);
    const res = await oneClick(goneUrl);
    t.equal(res.statusCode, 404);
    t.match(res.json(), { success: false, error: /no longer has an account/ });
  });
});
