import { generateKeyPairSync } from 'node:crypto';
import { notifications } from '@lms/db';
import { asc, eq } from 'drizzle-orm';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { type ParsedMail, simpleParser } from 'mailparser';
import t from 'tap';
import { messageIdFor } from '../../src/notifications/mail/sender.js';
import { writePersonSettings } from '../../src/notifications/settings.js';
import { buildTestApp } from '../helpers/app.js';
import { smtpServer } from '../helpers/smtp.js';
import { asSession, makeCast, makeCourse } from '../learning/enrolment-fixtures.js';
import { until } from '../helpers/until.js';

// End to end, receipts: a purchase by transfer through HTTP, the real queue's send job, the
// e-mail channel over SMTP to a real server on port 0, signed with DKIM. Each receipt arrives
// once (confirming twice, a repeated job), in its person's language, with absolute links under
// PUBLIC_URL and no List-Unsubscribe (a receipt cannot be switched off).

t.setTimeout(180_000);

const PUBLIC_URL = 'https://lms.example.ac.id';
const DOMAIN = 'lms.example.ac.id';
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKey = keys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

t.test('purchase receipts by e-mail: once each, in the person language, with absolute links, DKIM-signed', async (t) => {
  const smtp = await smtpServer();
  t.teardown(() => smtp.close());
  const { app, db } = await buildTestApp(t, {
    config: {
      PUBLIC_URL,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: `LMS <no-reply@${DOMAIN}>`,
      DKIM_DOMAIN: DOMAIN,
      DKIM_SELECTOR: 'lms2026',
      DKIM_PRIVATE_KEY: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      BANK_TRANSFER_BANK: 'Bank Contoh',
      BANK_TRANSFER_ACCOUNT_NUMBER: '123-456-789',
      BANK_TRANSFER_ACCOUNT_NAME: 'LMS Foundation',
    },
    deps: { jobs: { superviseSeconds: 1 } },
  });
  await app.ready();
  const cast = await makeCast(app, db.db);
  const { teacher, learner, otherLearner, admin } = cast;
  // The learner reads English (set as the settings page does); the other learner has no settings: Indonesian.
  await writePersonSettings(db.db, learner.id, {
    locale: 'en',
    timeZone: 'Asia/Jakarta',
    quietStartMinute: null,
    quietEndMinute: null,
    whatsappPhone: null,
    whatsappOptIn: false,
  });
  const post = (url: string, cookie: string, payload?: object) =>
    app.inject({ method: 'POST', url, headers: asSession(cookie), ...(payload ? { payload } : {}) });
  const rowsOf = (kind: string) => db.db.select().from(notifications).where(eq(notifications.kind, kind)).orderBy(asc(notifications.id));
  /** The mails received for a key: its Message-ID is derived from the key (mail/sender.ts). */
  const mailsFor = async (key: string): Promise<ParsedMail[]> => {
    const id = messageIdFor(key, DOMAIN);
    const parsed = await Promise.all(smtp.received.map((r) => simpleParser(r.data)));
    return parsed.filter((m) => m.messageId === id);
  };
  /** Waits for the one row of a kind (for a person) to be sent, and for its mail. */
  const sentMail = async (kind: string, userId: string) => {
    const [row] = await until(
      async () => (await rowsOf(kind)).filter((r) => r.userId === userId),
      (rows) => rows.length === 1 && rows[0]!.state !== 'pending',
      `${kind} to be sent`,
    );
    t.equal(row!.state, 'sent', `${kind}: sent (${row!.lastError ?? ''})`);
    const mails = await mailsFor(row!.key);
    t.equal(mails.length, 1, `${kind}: one mail`);
    return { row: row!, mail: mails[0]! };
  };

  const priced = { isPurchasable: true, price: '150000', priceNonMember: '150000', priceMahasiswa: '150000' } as const;
  const course = await makeCourse(db.db, teacher, { ...priced, name: 'Audit Dasar' });

  await t.test('transfer instructions, then paid, then refunded: English', async (t) => {
    const started = await post('/api/learning/purchases', learner.cookie, { courseId: course.id });
    t.equal(started.statusCode, 201, started.body);
    const purchase = started.json().purchase;
    t.equal((await post('/api/learning/purchases', learner.cookie, { courseId: course.id })).statusCode, 200, 'the same purchase again');

    const instructions = await sentMail('purchase.transfer_instructions', learner.id);
    t.same(instructions.mail.to && 'value' in instructions.mail.to ? instructions.mail.to.value.map((a) => a.address) : [], [
      learner.email,
    ]);
    t.equal(instructions.mail.from?.value[0]?.address, `no-reply@${DOMAIN}`);
    t.notOk(
      instructions.mail.headerLines.some((h) => h.key === 'list-unsubscribe'),
      'a receipt: no List-Unsubscribe',
    );
    t.notOk(instructions.mail.headerLines.some((h) => h.key === 'list-unsubscribe-post'));
    t.match(instructions.mail.text, purchase.reference, 'the transfer reference');
    t.match(instructions.mail.text, '123-456-789', 'the account to pay to');
    t.match(instructions.mail.html, /<html lang="en"/, 'English');
    t.comment(`instructions: ${instructions.mail.subject}`);

    t.equal((await post(`/api/learning/purchases/${purchase.id}/confirm`, admin.cookie)).statusCode, 200);
    t.equal((await post(`/api/learning/purchases/${purchase.id}/confirm`, admin.cookie)).statusCode, 409, 'confirmed twice: refused');
    const paid = await sentMail('purchase.paid', learner.id);
    t.match(paid.mail.html, /<html lang="en"/);
    t.match(paid.mail.text, `${PUBLIC_URL}/dashboard/courses/${course.id}`, 'the course link, absolute under PUBLIC_URL');
    t.notOk(paid.mail.headerLines.some((h) => h.key === 'list-unsubscribe'));
    for (const link of [...(paid.mail.html || '').matchAll(/href="([^"]+)"/g)].map((m) => m[1]!))
      t.match(link, /^(https:\/\/lms\.example\.ac\.id\/|mailto:)/, `an absolute link: ${link}`);
    t.comment(`paid: ${paid.mail.subject}`);

    // The send job of a sent row run again (a repeated job): nothing more is mailed.
    const again = await app.jobs.send('notification.send', { id: paid.row.id });
    t.ok(again, 'the repeated job is queued');
    await until(
      async () => (await app.jobs.boss.findJobs('notification.send', { id: again ?? '' })).map((j) => j.state),
      (states) => states.length === 1 && states[0] === 'completed',
      'the repeated job to finish',
    );
    t.equal((await mailsFor(paid.row.key)).length, 1, 'a repeated job: still one mail');

    t.equal(
      (await post(`/api/learning/purchases/${purchase.id}/refund`, admin.cookie, { reason: 'Cancelled by the buyer' })).statusCode,
      200,
    );
    t.equal((await post(`/api/learning/purchases/${purchase.id}/refund`, admin.cookie, { reason: 'Again' })).statusCode, 409);
    const refunded = await sentMail('purchase.refunded', learner.id);
    t.match(refunded.mail.text, 'Cancelled by the buyer', 'the reason');
    t.match(refunded.mail.html, /<html lang="en"/);
    t.notOk(refunded.mail.headerLines.some((h) => h.key === 'list-unsubscribe'));
  });

  await t.test('transfer instructions, then rejected with the reason: Indonesian', async (t) => {
    const started = await post('/api/learning/purchases', otherLearner.cookie, { courseId: course.id });
    t.equal(started.statusCode, 201, started.body);
    const id = started.json().purchase.id as number;
    const instructions = await sentMail('purchase.transfer_instructions', otherLearner.id);
    t.match(instructions.mail.html, /<html lang="id"/, 'no settings: Indonesian');
    const rejection = () => post(`/api/learning/purchases/${id}/rejection`, admin.cookie, { reason: 'Dana belum masuk' });
    t.equal((await rejection()).statusCode, 200);
    t.equal((await rejection()).statusCode, 409, 'rejected twice: refused');
    const rejected = await sentMail('purchase.rejected', otherLearner.id);
    t.match(rejected.mail.text, 'Dana belum masuk');
    t.match(rejected.mail.html, /<html lang="id"/);
    t.notOk(rejected.mail.headerLines.some((h) => h.key === 'list-unsubscribe'));
    t.comment(`rejected: ${rejected.mail.subject}`);
  });

  await t.test('every mail received: one per recorded key, each DKIM-signed for the domain', async (t) => {
    const rows = await db.db.select().from(notifications).where(eq(notifications.channel, 'email'));
    const sent = rows.filter((r) => r.state === 'sent');
    t.equal(sent.length, 5, 'two transfer instructions, paid, refunded, rejected: all sent');
    t.equal(smtp.received.length, sent.length, 'as many mails as rows sent: no repeat');
    for (const row of sent) t.equal((await mailsFor(row.key)).length, 1, `${row.key}: once`);
    const asked: string[] = [];
    const resolver = async (name: string, type: string) => {
      asked.push(`${type} ${name}`);
      if (name === `lms2026._domainkey.${DOMAIN}` && type === 'TXT') return [[`v=DKIM1; k=rsa; p=${publicKey}`]];
      throw Object.assign(new Error('no such record'), { code: 'ENOTFOUND' });
    };
    for (const received of smtp.received) {
      const result = await dkimVerify(Buffer.from(received.data), { resolver: resolver as never });
      t.equal(result.results[0]?.status.result, 'pass', `DKIM ${JSON.stringify(result.results[0]?.status)}`);
      t.equal(result.results[0]?.signingDomain, DOMAIN);
    }
    t.ok(asked.length > 0, 'the key was looked up in "DNS"');
    // Another key in DNS: the same mail fails, so the passes above mean something.
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    const wrong = await dkimVerify(Buffer.from(smtp.received[0]!.data), {
      resolver: (async () => [[`v=DKIM1; k=rsa; p=${other}`]]) as never,
    });
    t.equal(wrong.results[0]?.status.result, 'fail');
  });
});
