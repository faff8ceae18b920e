import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import t, { type Test } from 'tap';
import { type OutgoingEmail, PermanentDeliveryError, RECEIPT_KINDS, TemporaryDeliveryError } from '../../src/notifications/contract.js';
import { createEmailSender, type EmailSenderOptions } from '../../src/notifications/mail/sender.js';
import { renderNotification } from '../../src/notifications/templates/index.js';
import { SAMPLES, url } from '../helpers/notification-samples.js';

// The e-mail channel against real SMTP servers on free ports (smtp-server, as a mail provider's
// would answer): what arrives (both parts, the headers RFC 8058 asks for, the language), a DKIM
// signature that verifies with the published key, and each failure classified as the queue needs
// it: a closed port or a silent server is temporary, a 550 for the recipient permanent.

interface Received {
  raw: Buffer;
  from: string;
  to: string[];
}

/** A real SMTP server on a free port that keeps what it receives; `rcpt` may refuse a recipient. */
async function smtpServer(t: Test, options: { port?: number; refuse?: (address: string) => Error | null } = {}) {
  const received: Received[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, done) {
      done(options.refuse?.(address.address) ?? undefined);
    },
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          raw: Buffer.concat(chunks),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.server.address() as AddressInfo).port;
  return { received, port, url: `smtp://127.0.0.1:${port}` };
}

function sender(t: Test, options: Partial<EmailSenderOptions> & { smtpUrl: string }) {
  const s = createEmailSender({ from: 'LMS <no-reply@lms.test>', connectTimeoutMs: 2_000, socketTimeoutMs: 2_000, ...options });
  t.teardown(() => s.close());
  return s;
}

const LINKS = { publicUrl: 'https://lms.test', settingsUrl: url('dashboard/settings') };

function mail(kind: 'course.inactive' | 'purchase.paid', locale: 'id' | 'en', to = 'budi@example.org'): OutgoingEmail {
  const receipt = RECEIPT_KINDS.has(kind);
  const unsubscribeUrl = receipt ? undefined : url('unsubscribe/tok-1');
  const message =
    kind === 'purchase.paid'
      ? renderNotification(kind, locale, SAMPLES[kind], { ...LINKS, unsubscribeUrl }, 'Asia/Jakarta')
      : renderNotification(kind, locale, SAMPLES[kind], { ...LINKS, unsubscribeUrl }, 'Asia/Jakarta');
  return { to, toName: 'Budi Santoso', kind, key: `${kind}:user:1:2026-11`, message, ...(unsubscribeUrl ? { unsubscribeUrl } : {}) };
}

t.test('a reminder and a receipt arrive with both parts, in their language, List-Unsubscribe only on the reminder', async (t) => {
  const server = await smtpServer(t);
  const s = sender(t, { smtpUrl: server.url });
  const reminder = mail('course.inactive', 'id');
  const first = await s.send(reminder);
  const again = await s.send(reminder);
  t.equal(again.providerMessageId, first.providerMessageId, 'a retry of one notification key has the same Message-ID');
  t.match(first.providerMessageId, /^<[0-9a-f]{40}@lms\.test>$/);
  await s.send({ ...mail('purchase.paid', 'en'), from: 'Ikatan Akuntan <kabar@iai.test>' });
  t.equal(server.received.length, 3);

  const r = await simpleParser(server.received[0]!.raw);
  t.same(server.received[0]!.to, ['budi@example.org']);
  t.equal(r.subject, reminder.message.subject);
  t.match(r.subject, /^Lanjutkan belajar/, 'Indonesian');
  t.equal(r.text?.trim(), reminder.message.text.trim(), 'the text part');
  t.equal(r.html, reminder.message.html, 'the HTML part');
  t.same(r.from?.value, [{ name: 'LMS', address: 'no-reply@lms.test' }], "the deployment's From");
  t.equal(r.to && !Array.isArray(r.to) ? r.to.value[0]!.name : '', 'Budi Santoso');
  t.equal(r.messageId, first.providerMessageId);
  const raw = String(server.received[0]!.raw);
  t.ok(raw.split('\r\n').includes(`List-Unsubscribe: <${url('unsubscribe/tok-1')}>`), 'RFC 8058: the one-click URL');
  t.match(raw, '\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n');
  t.match(r.headers.get('content-type'), { value: 'multipart/alternative' });

  const receipt = await simpleParser(server.received[2]!.raw);
  t.match(receipt.subject, /^Payment received/, 'English');
  t.same(receipt.from?.value, [{ name: 'Ikatan Akuntan', address: 'kabar@iai.test' }], "the institution's From wins");
  t.equal(server.received[2]!.from, 'kabar@iai.test', 'and is the envelope sender');
  t.notOk(receipt.headers.has('list-unsubscribe'), 'a receipt: no List-Unsubscribe');
  t.notMatch(String(server.received[2]!.raw), /List-Unsubscribe/i);
  t.ok(receipt.text && receipt.html, 'both parts');
  t.not(receipt.messageId, first.providerMessageId, 'another key: another Message-ID');
});

t.test('the DKIM signature verifies with the public key in DNS and covers List-Unsubscribe', async (t) => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const published = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const server = await smtpServer(t);
  const s = sender(t, { smtpUrl: server.url, dkim: { domainName: 'lms.test', keySelector: 'lms2026', privateKey: pem } });
  await s.send(mail('course.inactive', 'en'));
  const asked: string[] = [];
  const resolver = async (name: string, type: string) => {
    asked.push(`${type} ${name}`);
    if (type === 'TXT' && name === 'lms2026._domainkey.lms.test') return [[`v=DKIM1; k=rsa; p=${published}`]];
    throw Object.assign(new Error('no such record'), { code: 'ENOTFOUND' });
  };
  const result = await dkimVerify(server.received[0]!.raw, { resolver: resolver as never });
  t.same(asked, ['TXT lms2026._domainkey.lms.test'], 'the key is looked up at <selector>._domainkey.<domain>');
  t.equal(result.results.length, 1);
  const signature = result.results[0]!;
  t.equal(signature.status.result, 'pass', `DKIM: ${JSON.stringify(signature.status)}`);
  t.equal(signature.signingDomain, 'lms.test');
  t.equal(signature.selector, 'lms2026');
  const signed =
    /\bh=([^;]+)/
      .exec(String(server.received[0]!.raw).replace(/\r\n\s+/g, ''))?.[1]
      ?.toLowerCase()
      .split(':') ?? [];
  for (const header of ['from', 'subject', 'message-id', 'list-unsubscribe', 'list-unsubscribe-post'])
    t.ok(signed.includes(header), `${header} signed`);

  // Another key in DNS: the same message fails, so the pass above means something.
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const wrong = await dkimVerify(server.received[0]!.raw, { resolver: (async () => [[`v=DKIM1; k=rsa; p=${other}`]]) as never });
  t.equal(wrong.results[0]!.status.result, 'fail');
});

t.test('SMTP down: a temporary error; once the server is up, the same mail is delivered', async (t) => {
  // A port that was free a moment ago: nothing listens there.
  const closedPort = await new Promise<number>((resolve) => {
    const s: Server = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const s = sender(t, { smtpUrl: `smtp://127.0.0.1:${closedPort}` });
  const reminder = mail('course.inactive', 'id');
  const err = await s.send(reminder).catch((e: unknown) => e);
  t.type(err, TemporaryDeliveryError, 'connection refused is temporary');
  t.match((err as Error).message, /ECONNECTION|ECONNREFUSED|ESOCKET/);

  const up = await smtpServer(t, { port: closedPort });
  const sent = await s.send(reminder);
  t.equal(up.received.length, 1, 'delivered on the next attempt through the same sender');
  t.match(sent.providerMessageId, /@lms\.test>$/);
});

t.test('a 550 for the recipient is permanent; a 450 is temporary', async (t) => {
  const server = await smtpServer(t, {
    refuse: (address) =>
      address.startsWith('gone@')
        ? Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 })
        : address.startsWith('full@')
          ? Object.assign(new Error('4.2.2 Mailbox full, try later'), { responseCode: 450 })
          : null,
  });
  const s = sender(t, { smtpUrl: server.url });
  const gone = await s.send(mail('course.inactive', 'id', 'gone@example.org')).catch((e: unknown) => e);
  t.type(gone, PermanentDeliveryError);
  t.match((gone as Error).message, /550.*No such user/);
  const full = await s.send(mail('course.inactive', 'id', 'full@example.org')).catch((e: unknown) => e);
  t.type(full, TemporaryDeliveryError);
  t.match((full as Error).message, /450/);
  await s.send(mail('course.inactive', 'id', 'budi@example.org'));
  t.equal(server.received.length, 1, 'the connection still delivers to a good recipient');
});

t.test('a server that accepts the connection and never answers is cut by the timeout', async (t) => {
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => silent.close(() => resolve()));
  });
  const s = sender(t, { smtpUrl: `smtp://127.0.0.1:${(silent.address() as AddressInfo).port}`, connectTimeoutMs: 300 });
  const err = await s.send(mail('course.inactive', 'en')).catch((e: unknown) => e);
  t.type(err, TemporaryDeliveryError, 'a timeout is temporary');
  t.match((err as Error).message, /ETIMEDOUT|Greeting never received|timeout/i);
  t.equal(sockets.size, 1, 'it did connect: the greeting was what never came');
});
