import { notificationPreferences, notifications } from '@lms/db';
import { and, asc, eq } from 'drizzle-orm';
import { type ParsedMail, simpleParser } from 'mailparser';
import t from 'tap';
import { messageIdFor } from '../../src/notifications/mail/sender.js';
import { buildTestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/clock.js';
import { smtpServer } from '../helpers/smtp.js';
import { asSession, makeCast, makeCourse } from '../learning/enrolment-fixtures.js';
import { until } from '../helpers/until.js';

// End to end, a reminder and its one-click unsubscribe (RFC 8058): the hourly scan records
// course.ending 7 days before the end, the queue's send job mails it over SMTP with
// List-Unsubscribe and List-Unsubscribe-Post; the mail client POSTs the one-click body to that
// URL with no session; the 1-day reminder of that kind is then recorded as skipped and not
// mailed. An altered token, or one person's link, switches nobody else off.

t.setTimeout(180_000);

const PUBLIC_URL = 'https://lms.example.ac.id';
const DAY = 86_400_000;

t.test('a reminder carries one-click unsubscribe; after it, the next reminder of the kind is skipped, not mailed', async (t) => {
  const smtp = await smtpServer();
  t.teardown(() => smtp.close());
  const time = manualClock(Date.now());
  const { app, db } = await buildTestApp(t, {
    config: { PUBLIC_URL, SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'LMS <no-reply@lms.example.ac.id>' },
    deps: { clock: time.clock, jobs: { superviseSeconds: 1 } },
  });
  await app.ready();
  const { teacher, learner, otherLearner } = await makeCast(app, db.db);
  const start = time.ms;
  const endDate = new Date(start + 7 * DAY);
  const course = await makeCourse(db.db, teacher, { name: 'Etika Profesi', endDate });
  for (const person of [learner, otherLearner]) {
    const enrolled = await app.inject({
      method: 'POST',
      url: `/api/learning/courses/${course.id}/enrollment`,
      headers: asSession(person.cookie),
    });
    t.equal(enrolled.statusCode, 201, enrolled.body);
  }
  const endingRows = () => db.db.select().from(notifications).where(eq(notifications.kind, 'course.ending')).orderBy(asc(notifications.id));
  const mailsFor = async (key: string): Promise<ParsedMail[]> => {
    const id = messageIdFor(key, 'lms.example.ac.id');
    return (await Promise.all(smtp.received.map((r) => simpleParser(r.data)))).filter((m) => m.messageId === id);
  };
  /** A header as the mail client reads it: from the message's header block, unfolded (mailparser groups List-* under 'list'). */
  const header = (m: ParsedMail, name: string) =>
    m.headerLines
      .find((h) => h.key === name.toLowerCase())
      ?.line.replace(/\r?\n\s+/g, ' ')
      .replace(/^[^:]+:\s*/, '') ?? null;
  const offFor = async (userId: string) =>
    (
      await db.db
        .select()
        .from(notificationPreferences)
        .where(and(eq(notificationPreferences.userId, userId), eq(notificationPreferences.enabled, false)))
    ).map((p) => `${p.kind} ${p.channel}`);
  const oneClick = (url: string) =>
    app.inject({
      method: 'POST',
      url: url.replace(PUBLIC_URL, ''),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });

  // Seven days before the end: the 7-day reminder for both learners.
  await app.scanReminders();
  const week = await until(endingRows, (rows) => rows.length === 2 && rows.every((r) => r.state !== 'pending'), 'the 7-day reminders');
  t.same(
    week.map((r) => [r.state, r.key.includes(':7d')]),
    [
      ['sent', true],
      ['sent', true],
    ],
    'both 7-day reminders sent',
  );
  const mine = week.find((r) => r.userId === learner.id)!;
  const [mail] = await mailsFor(mine.key);
  t.ok(mail, 'the learner got the 7-day reminder');
  const listUnsubscribe = header(mail!, 'List-Unsubscribe') ?? '';
  t.match(
    listUnsubscribe,
    /^<https:\/\/lms\.example\.ac\.id\/notifications\/unsubscribe\?token=[^>]+>$/,
    'List-Unsubscribe: an absolute https URL',
  );
  t.equal(header(mail!, 'List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click', 'List-Unsubscribe-Post: One-Click');
  const url = listUnsubscribe.slice(1, -1);
  const [otherMail] = await mailsFor(week.find((r) => r.userId === otherLearner.id)!.key);
  const otherUrl = (header(otherMail!, 'List-Unsubscribe') ?? '').slice(1, -1);
  t.not(otherUrl, url, 'each person their own link');

  await t.test('an altered token unsubscribes nobody', async (t) => {
    const token = new URL(url).searchParams.get('token')!;
    const [payload, mac] = token.split('.') as [string, string];
    const otherPayload = new URL(otherUrl).searchParams.get('token')!.split('.')[0]!;
    for (const [name, forged] of [
      ["the other learner's payload under this signature", `${otherPayload}.${mac}`],
      ['a changed signature', `${payload}.${mac.slice(0, -2)}${mac.endsWith('AA') ? 'AB' : 'AA'}`],
      ['no signature', payload],
    ] as const) {
      const res = await oneClick(`/notifications/unsubscribe?token=${encodeURIComponent(forged)}`);
      t.equal(res.statusCode, 400, `${name}: 400`);
      t.equal(res.json().success, false, 'in the error shape');
    }
    t.same(await offFor(learner.id), []);
    t.same(await offFor(otherLearner.id), []);
  });

  await t.test('the one-click POST, with no session, switches the kind off for that person only', async (t) => {
    const done = await oneClick(url);
    t.equal(done.statusCode, 200, 'RFC 8058: 200');
    t.same(await offFor(learner.id), ['course.ending email']);
    t.same(await offFor(otherLearner.id), [], "one person's link switches off nobody else");
  });

  await t.test('one day before the end: skipped for who unsubscribed, mailed to the other', async (t) => {
    time.set(endDate.getTime() - DAY);
    await app.scanReminders();
    const rows = await until(
      endingRows,
      (r) => r.length === 4 && r.every((x) => x.state !== 'pending'),
      'the 1-day reminders to be settled',
    );
    const day = rows.filter((r) => r.key.includes(':1d'));
    const learnerDay = day.find((r) => r.userId === learner.id)!;
    const otherDay = day.find((r) => r.userId === otherLearner.id)!;
    t.match(learnerDay, { state: 'skipped', lastError: 'switched off by the person' }, 'recorded as skipped, with why');
    t.equal((await mailsFor(learnerDay.key)).length, 0, 'and not mailed');
    t.equal(otherDay.state, 'sent');
    t.equal((await mailsFor(otherDay.key)).length, 1, 'the other learner still gets it');
    const endingMails = (await Promise.all(rows.map((r) => mailsFor(r.key)))).flat();
    t.equal(endingMails.length, 3, 'course.ending mails in all: two at 7 days, one at 1 day');
  });
});
