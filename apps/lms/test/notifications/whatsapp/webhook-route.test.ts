import type { AddressInfo } from 'node:net';
import { createWhatsAppFake, statusWebhookBody } from '@lms/example-whatsapp-fake';
import t, { type Test } from 'tap';
import {
  createWhatsAppSender,
  SIGNATURE_HEADER,
  signBody,
  supersedes,
  type WhatsAppStatus,
  type WhatsAppStatusUpdate,
} from '../../../src/notifications/whatsapp/index.js';
import { createTestDb } from '@lms/db/testing';
import { buildTestApp } from '../../helpers/app.js';
import { testDatabaseUrl } from '../../helpers/database.js';

// CI runs this file once (not again in the PostgreSQL pass): the webhook route reads no table.

const SECRET = 'test-app-secret-0123456789';
const VERIFY = 'test-verify-token-0123456789';
const NUMBER_ID = '106540352242922';
const URL_ = '/webhooks/whatsapp';

// One database for every app here: the route reads no table, and each migrated database costs seconds.
const db = await createTestDb(testDatabaseUrl);
t.teardown(() => db.destroy());

/** An app whose status callback keeps what it got, and a notification store that applies them as the records must (supersedes). */
async function appWithStatuses(t: Test, config: Record<string, string | undefined> = {}) {
  const updates: WhatsAppStatusUpdate[] = [];
  const rows = new Map<string, WhatsAppStatus | 'sent'>();
  const { app } = await buildTestApp(t, {
    db,
    config: {
      WHATSAPP_APP_SECRET: SECRET,
      WHATSAPP_VERIFY_TOKEN: VERIFY,
      WHATSAPP_PHONE_NUMBER_ID: NUMBER_ID,
      WHATSAPP_ACCESS_TOKEN: 'test-whatsapp-token-0123456789',
      ...config,
    },
    deps: {
      onWhatsAppStatus: async (update) => {
        updates.push(update);
        const current = rows.get(update.providerMessageId) ?? null;
        if (supersedes(current, update.status)) rows.set(update.providerMessageId, update.status);
      },
    },
  });
  return { app, updates, rows };
}

const body = (id: string, status: string, extra: { phoneNumberId?: string; timestamp?: number } = {}) =>
  JSON.stringify(
    statusWebhookBody({
      id,
      status,
      recipient: '6281234567890',
      phoneNumberId: extra.phoneNumberId ?? NUMBER_ID,
      timestamp: extra.timestamp ?? 1795000000,
    }),
  );
const signed = (payload: string, secret = SECRET) => ({
  'content-type': 'application/json',
  [SIGNATURE_HEADER]: signBody(payload, secret),
});

t.test('the verification handshake answers the challenge only with the verify token', async (t) => {
  const { app } = await appWithStatuses(t);
  const ok = await app.inject({ url: `${URL_}?hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=1158201444` });
  t.equal(ok.statusCode, 200);
  t.equal(ok.body, '1158201444');
  t.match(ok.headers['content-type'], /^text\/plain/);
  for (const query of [
    `hub.mode=subscribe&hub.verify_token=wrong-token-0123456789&hub.challenge=1`,
    `hub.mode=unsubscribe&hub.verify_token=${VERIFY}&hub.challenge=1`,
    'hub.challenge=1',
  ]) {
    const res = await app.inject({ url: `${URL_}?${query}` });
    t.equal(res.statusCode, 403, query);
    t.same(res.json(), { success: false, error: 'The webhook verification token does not match' });
  }
  const script = await app.inject({ url: `${URL_}?hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=%3Cscript%3E` });
  t.equal(script.statusCode, 400, 'a challenge that is not a plain token is not echoed');
  t.equal(script.json().success, false);
});

t.test('without the secrets the webhooks are not set up: 503 in the error shape', async (t) => {
  const { app, updates } = await appWithStatuses(t, { WHATSAPP_APP_SECRET: undefined, WHATSAPP_VERIFY_TOKEN: undefined });
  const get = await app.inject({ url: `${URL_}?hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=1` });
  t.equal(get.statusCode, 503);
  t.match(get.json(), { success: false, error: /WHATSAPP_VERIFY_TOKEN/ });
  const payload = body('wamid.A', 'delivered');
  const post = await app.inject({ method: 'POST', url: URL_, payload, headers: signed(payload) });
  t.equal(post.statusCode, 503);
  t.match(post.json(), { success: false, error: /WHATSAPP_APP_SECRET/ });
  t.same(updates, []);
});

t.test('a signed status webhook hands each delivered/read/failed status on, with its time and error', async (t) => {
  const { app, updates } = await appWithStatuses(t);
  const failed = body('wamid.F', 'failed');
  const res = await app.inject({ method: 'POST', url: URL_, payload: failed, headers: signed(failed) });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { received: 1 });
  t.same(updates, [
    {
      providerMessageId: 'wamid.F',
      status: 'failed',
      at: new Date(1795000000 * 1000),
      recipient: '6281234567890',
      error: { code: 131026, title: 'Message undeliverable', details: 'Message Undeliverable.' },
    },
  ]);
  // `sent` is known from the API's answer; another number of the same app is not ours.
  for (const payload of [body('wamid.S', 'sent'), body('wamid.O', 'delivered', { phoneNumberId: '999999999' })]) {
    const other = await app.inject({ method: 'POST', url: URL_, payload, headers: signed(payload) });
    t.same(other.json(), { received: 0 });
  }
  t.equal(updates.length, 1);
});

t.test('attacker: unsigned, wrongly signed, tampered or oddly typed bodies are 401 and never reach the callback', async (t) => {
  const { app, updates } = await appWithStatuses(t);
  const payload = body('wamid.X', 'read');
  const good = signBody(payload, SECRET);
  const attempts: [string, Record<string, string>, string][] = [
    ['no signature', { 'content-type': 'application/json' }, payload],
    ['another secret', signed(payload, 'someone-elses-secret-0123'), payload],
    ['a byte changed after signing', { 'content-type': 'application/json', [SIGNATURE_HEADER]: good }, payload.replace('read', 'fail')],
    ['sha1 instead of sha256', { 'content-type': 'application/json', [SIGNATURE_HEADER]: good.replace('sha256=', 'sha1=') }, payload],
    ['a short signature', { 'content-type': 'application/json', [SIGNATURE_HEADER]: good.slice(0, 40) }, payload],
    ['not hex', { 'content-type': 'application/json', [SIGNATURE_HEADER]: `sha256=${'z'.repeat(64)}` }, payload],
    ['text/plain, unsigned', { 'content-type': 'text/plain' }, payload],
    ['no body at all', {}, ''],
  ];
  for (const [what, headers, sent] of attempts) {
    const res = await app.inject({ method: 'POST', url: URL_, payload: sent, headers });
    t.equal(res.statusCode, 401, what);
    t.same(res.json(), { success: false, error: 'Missing or invalid X-Hub-Signature-256' }, what);
  }
  t.same(updates, [], 'the callback never ran');
});

t.test('attacker: a replayed valid body is accepted and changes nothing', async (t) => {
  const { app, rows } = await appWithStatuses(t);
  const delivered = body('wamid.R', 'delivered');
  const read = body('wamid.R', 'read', { timestamp: 1795000100 });
  for (const payload of [delivered, read]) {
    t.equal((await app.inject({ method: 'POST', url: URL_, payload, headers: signed(payload) })).statusCode, 200);
  }
  t.equal(rows.get('wamid.R'), 'read');
  // The captured `delivered` body, sent again (Meta's signature has no timestamp): accepted, and the row stays read.
  const replay = await app.inject({ method: 'POST', url: URL_, payload: delivered, headers: signed(delivered) });
  t.equal(replay.statusCode, 200);
  t.equal(rows.get('wamid.R'), 'read');
  t.equal(supersedes('failed', 'delivered'), false, 'failed is final');
  t.equal(supersedes('delivered', 'failed'), true);
});

t.test('attacker: a 10 MB body is refused with 413 before it is read whole; deep JSON is a 400, never parsed unsigned', async (t) => {
  const { app, updates } = await appWithStatuses(t);
  const huge = `{"object":"${'x'.repeat(10 * 1024 * 1024)}"}`;
  const big = await app.inject({ method: 'POST', url: URL_, payload: huge, headers: signed(huge) });
  t.equal(big.statusCode, 413);
  t.match(big.json(), { success: false, error: /at most 262144 bytes/ });

  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  const unsigned = await app.inject({ method: 'POST', url: URL_, payload: deep, headers: { 'content-type': 'application/json' } });
  t.equal(unsigned.statusCode, 401, 'unsigned: refused before any parsing');
  const deepSigned = await app.inject({ method: 'POST', url: URL_, payload: deep, headers: signed(deep) });
  t.equal(deepSigned.statusCode, 400, 'signed with the right secret but nested 100,000 deep: 400, not 500');
  t.equal(deepSigned.json().success, false);
  const notJson = await app.inject({ method: 'POST', url: URL_, payload: 'hello', headers: signed('hello') });
  t.equal(notJson.statusCode, 400);
  const wrongShape = JSON.stringify({ object: 'whatsapp_business_account', entry: 'all' });
  const shape = await app.inject({ method: 'POST', url: URL_, payload: wrongShape, headers: signed(wrongShape) });
  t.equal(shape.statusCode, 400);
  t.match(shape.json(), { success: false, error: /^Invalid request body: entry/ });
  t.same(updates, []);
});

t.test('end to end on real sockets: sent through the fake Cloud API, its signed status reaches the LMS', async (t) => {
  const { app, rows } = await appWithStatuses(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const lmsPort = (app.server.address() as AddressInfo).port;
  const fake = createWhatsAppFake({
    accessToken: 'test-whatsapp-token-0123456789',
    phoneNumberId: NUMBER_ID,
    onWhatsApp: ['6281234567890'],
    webhookUrl: `http://127.0.0.1:${lmsPort}${URL_}`,
    appSecret: SECRET,
  });
  await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => fake.close());
  const sender = createWhatsAppSender({
    apiUrl: `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/v21.0`,
    phoneNumberId: NUMBER_ID,
    accessToken: 'test-whatsapp-token-0123456789',
    timeoutMs: 2_000,
  });
  const { providerMessageId } = await sender.send({
    to: '6281234567890',
    kind: 'enrolment.confirmed',
    key: 'enrolment.confirmed:course:7:',
    template: { name: 'lms_enrolment_confirmed', language: 'id', parameters: ['Farmakologi', 'https://lms.test/learn/7'] },
  });
  t.equal(await fake.sendStatus({ id: providerMessageId, status: 'delivered' }), 200);
  t.equal(await fake.sendStatus({ id: providerMessageId, status: 'read' }), 200);
  t.equal(rows.get(providerMessageId), 'read');
});
