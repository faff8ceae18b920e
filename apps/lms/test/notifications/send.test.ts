import { type Db, inTransaction, notificationPreferences, notificationSettings, notifications } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import type { NotificationRequest } from '../../src/notifications/contract.js';
import { TemporaryDeliveryError } from '../../src/notifications/contract.js';
import { createNotify } from '../../src/notifications/notify.js';
import { BusyError, markFailed, type RenderNotification, type SendDeps, sendNotification } from '../../src/notifications/send.js';
import { buildTestApp } from '../helpers/app.js';
import { makeInstitution, makeUser } from '../helpers/fixtures.js';
import { smtpSender, smtpServer } from '../helpers/smtp.js';

// The send job against a real SMTP server: sent once, a temporary refusal retried, a permanent
// one recorded, switched-off kinds skipped, quiet hours waited for, a held lease respected.

/** Until the real templates merge: the kind, the language and the data, plainly. */
const render: RenderNotification = (kind, locale, data, links) => ({
  subject: `${kind} (${locale})`,
  text: `${JSON.stringify(data)}\nsettings: ${links.settingsUrl}\nunsubscribe: ${links.unsubscribeUrl ?? 'none'}`,
  html: '',
});

// 22:00 in Jakarta (UTC+7).
const NOW = new Date('2026-07-01T15:00:00.000Z');

t.test('sendNotification', async (t) => {
  const { db: testDb } = await buildTestApp(t);
  const db = testDb.db;
  let refusal: 'temporary' | 'permanent' | null = null;
  const smtp = await smtpServer(() => refusal);
  t.teardown(smtp.close);
  const enqueued: number[] = [];
  const notify = createNotify({ enqueue: async (_tx, id) => void enqueued.push(id) });
  const institutionId = await makeInstitution(db);
  const person = await makeUser(db, { role: 'student', institutionId, name: 'Budi' });
  const deps: SendDeps = {
    db,
    publicUrl: 'http://lms.test',
    linkSecret: 'a-test-link-secret-of-at-least-32-chars',
    disabledKinds: [],
    render,
    email: smtpSender(smtp.port),
    now: () => NOW,
  };
  let n = 0;
  const record = async (request: Partial<NotificationRequest> & Pick<NotificationRequest, 'kind' | 'data'>, who = person.id) => {
    const done = await inTransaction(db, (tx: Db) =>
      notify(tx, { userId: who, institutionId, subject: `test:${++n}`, ...request } as NotificationRequest),
    );
    if (!done.created) throw new Error('not recorded');
    return done.id;
  };
  const row = async (id: number) => (await db.select().from(notifications).where(eq(notifications.id, id)))[0]!;
  const enrolment = { kind: 'enrolment.confirmed' as const, data: { courseTitle: 'Statistika', courseUrl: 'http://lms.test/courses/1' } };
  const ending = {
    kind: 'course.ending' as const,
    data: {
      courseTitle: 'Statistika',
      courseUrl: 'http://lms.test/courses/1',
      endsAt: '2026-07-08T00:00:00Z',
      daysLeft: 7,
      progressPercent: 40,
    },
  };

  await t.test('sent once: a repeated job sends nothing more', async (t) => {
    const id = await record(enrolment);
    t.ok(enqueued.includes(id), 'its sending was enqueued with it');
    const first = await sendNotification(id, deps);
    t.match(first, { state: 'sent', providerMessageId: /^<enrolment\.confirmed/ });
    t.same(await sendNotification(id, deps), { state: 'done', was: 'sent' }, 'the same job again');
    t.equal(smtp.received.length, 1, 'one message delivered');
    t.same(smtp.received[0]!.to, [person.email]);
    t.match(smtp.received[0]!.data, /Subject: enrolment\.confirmed \(id\)/);
    t.notMatch(smtp.received[0]!.data, /List-Unsubscribe/, 'a receipt has no unsubscribe header');
    t.match(await row(id), { state: 'sent', attempts: 1, lastError: null, sentAt: NOW, lockedUntil: null });
  });

  await t.test('a temporary refusal: thrown for the queue, then sent on retry', async (t) => {
    const before = smtp.received.length;
    const id = await record(enrolment);
    refusal = 'temporary';
    await t.rejects(sendNotification(id, deps), TemporaryDeliveryError);
    t.match(await row(id), { state: 'pending', attempts: 1, lastError: /451/, lockedUntil: null });
    refusal = null;
    t.match(await sendNotification(id, deps), { state: 'sent' });
    t.match(await row(id), { state: 'sent', attempts: 2, lastError: null });
    t.equal(smtp.received.length, before + 1);
  });

  await t.test('after the last retry the queue marks it failed, with the reason', async (t) => {
    const id = await record(enrolment);
    refusal = 'temporary';
    await t.rejects(sendNotification(id, deps), TemporaryDeliveryError);
    refusal = null;
    t.ok(await markFailed(db, id, 'gave up after 5 attempts: 451 Mailbox busy'));
    t.match(await row(id), { state: 'failed', lastError: 'gave up after 5 attempts: 451 Mailbox busy' });
    t.same(await sendNotification(id, deps), { state: 'done', was: 'failed' }, 'a failed row is not sent');
    const sent = await record(enrolment);
    await sendNotification(sent, deps);
    t.notOk(await markFailed(db, sent, 'late'), 'a sent row stays sent');
    t.match(await row(sent), { state: 'sent' });
  });

  await t.test('a permanent refusal: failed at once, not retried', async (t) => {
    const before = smtp.received.length;
    const id = await record(enrolment);
    refusal = 'permanent';
    t.match(await sendNotification(id, deps), { state: 'failed', reason: /550/ });
    refusal = null;
    t.match(await row(id), { state: 'failed', attempts: 1, lastError: /PermanentDeliveryError: 550/ });
    t.same(await sendNotification(id, deps), { state: 'done', was: 'failed' });
    t.equal(smtp.received.length, before);
  });

  await t.test('a send under way elsewhere (a held lease): not sent twice', async (t) => {
    const before = smtp.received.length;
    const id = await record(enrolment);
    await db
      .update(notifications)
      .set({ lockedUntil: new Date(NOW.getTime() + 60_000) })
      .where(eq(notifications.id, id));
    await t.rejects(sendNotification(id, deps), BusyError);
    t.equal(smtp.received.length, before, 'nothing sent');
    // The lease of a crashed instance runs out: then it is sent.
    await db
      .update(notifications)
      .set({ lockedUntil: new Date(NOW.getTime() - 1) })
      .where(eq(notifications.id, id));
    t.match(await sendNotification(id, deps), { state: 'sent' });
  });

  await t.test('two instances run the same job at once: one message', async (t) => {
    const before = smtp.received.length;
    const id = await record(enrolment);
    const outcomes = await Promise.allSettled([sendNotification(id, deps), sendNotification(id, deps), sendNotification(id, deps)]);
    const sent = outcomes.filter((o) => o.status === 'fulfilled' && o.value.state === 'sent');
    t.equal(sent.length, 1, 'one sends');
    for (const o of outcomes.filter((x) => !sent.includes(x))) {
      // The others found it sent, or its lease held (the queue retries them; then it is sent).
      t.ok(o.status === 'fulfilled' ? o.value.state === 'done' : o.reason instanceof BusyError, 'another: done or busy');
    }
    t.equal(smtp.received.length, before + 1, 'one message delivered');
    t.match(await row(id), { state: 'sent', attempts: 1 });
  });

  await t.test('switched off: skipped with the reason, never a receipt', async (t) => {
    const before = smtp.received.length;
    const offForAll = await record(ending);
    t.same(await sendNotification(offForAll, { ...deps, disabledKinds: ['course.ending'] }), {
      state: 'skipped',
      reason: 'switched off for the deployment',
    });
    await db.insert(notificationPreferences).values([
      { userId: person.id, kind: 'course.ending', channel: 'email', enabled: false },
      // Written past the rules: a receipt is still sent.
      { userId: person.id, kind: 'enrolment.confirmed', channel: 'email', enabled: false },
    ]);
    const offForPerson = await record(ending);
    t.same(await sendNotification(offForPerson, deps), { state: 'skipped', reason: 'switched off by the person' });
    t.match(await row(offForPerson), { state: 'skipped', lastError: 'switched off by the person', attempts: 0 });
    const receipt = await record(enrolment);
    t.match(await sendNotification(receipt, { ...deps, disabledKinds: ['enrolment.confirmed'] }), { state: 'sent' });
    t.equal(smtp.received.length, before + 1, 'only the receipt went');
    await db.delete(notificationPreferences).where(eq(notificationPreferences.userId, person.id));
  });

  await t.test('quiet hours hold a reminder until they end; a receipt goes', async (t) => {
    await db.insert(notificationSettings).values({ userId: person.id, locale: 'en', quietStartMinute: 21 * 60, quietEndMinute: 7 * 60 });
    const before = smtp.received.length;
    const reminder = await record(ending);
    const later = new Date('2026-07-02T00:00:00.000Z');
    t.same(await sendNotification(reminder, deps), { state: 'later', sendAfter: later }, '07:00 in Jakarta');
    t.match(await row(reminder), { state: 'pending', sendAfter: later, attempts: 0 });
    t.same(await sendNotification(reminder, { ...deps, now: () => new Date('2026-07-01T23:59:00Z') }), {
      state: 'later',
      sendAfter: later,
    });
    t.match(await sendNotification(reminder, { ...deps, now: () => later }), { state: 'sent' });
    const mail = smtp.received.at(-1)!.data;
    t.match(mail, /Subject: course\.ending \(en\)/, "in the person's language");
    t.match(mail, /List-Unsubscribe: <http:\/\/lms\.test\/notifications\/unsubscribe\?token=/);
    t.match(mail, /List-Unsubscribe-Post: List-Unsubscribe=One-Click/);
    t.match(await sendNotification(await record(enrolment), deps), { state: 'sent' }, 'a receipt at 22:00');
    t.equal(smtp.received.length, before + 2);
  });

  await t.test('one row per channel: WhatsApp only confirmed and opted in', async (t) => {
    const other = await makeUser(db, { role: 'student' });
    await db.insert(notificationSettings).values({ userId: other.id, whatsappPhone: '+6281234567890', whatsappOptIn: true });
    const key = { ...enrolment, subject: 'channels:1' };
    const one = await inTransaction(db, (tx: Db) => notify(tx, { ...key, userId: other.id, institutionId: null }));
    t.equal((await db.select().from(notifications).where(eq(notifications.userId, other.id))).length, 1, 'unconfirmed number: e-mail only');
    await db.update(notificationSettings).set({ phoneConfirmedAt: NOW }).where(eq(notificationSettings.userId, other.id));
    const two = await inTransaction(db, (tx: Db) => notify(tx, { ...key, subject: 'channels:2', userId: other.id, institutionId: null }));
    const rows = await db.select().from(notifications).where(eq(notifications.userId, other.id));
    t.same(rows.map((r) => r.channel).sort(), ['email', 'email', 'whatsapp']);
    t.ok(one.created && two.created);
    const again = await inTransaction(db, (tx: Db) => notify(tx, { ...key, subject: 'channels:2', userId: other.id, institutionId: null }));
    t.same(again, { id: two.id, created: false }, 'the same key again: nothing new');
    const whatsapp = rows.find((r) => r.channel === 'whatsapp')!;
    t.same(await sendNotification(whatsapp.id, deps), { state: 'skipped', reason: 'WhatsApp is not configured' });
  });
});
