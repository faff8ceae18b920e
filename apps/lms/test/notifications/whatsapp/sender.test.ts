import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWhatsAppFake } from '@lms/example-whatsapp-fake';
import t from 'tap';
import { PermanentDeliveryError, TemporaryDeliveryError } from '../../../src/notifications/contract.js';
import {
  createWhatsAppSender,
  phoneConfirmationMessage,
  WHATSAPP_TEMPLATES,
  whatsAppSenderFromConfig,
  whatsAppTemplate,
} from '../../../src/notifications/whatsapp/index.js';
import { NOTIFICATION_KINDS } from '../../../src/notifications/contract.js';
import { testConfig } from '../../../src/testing.js';
import { SAMPLE_DATA } from './samples.js';

// CI runs this file once (not again in the PostgreSQL pass): the WhatsApp sender against the
// Cloud API fake (examples/whatsapp-fake) on port 0; no database.

const TOKEN = 'test-whatsapp-token-0123456789';
const NUMBER_ID = '106540352242922';
const ON_WHATSAPP = '6281234567890';

/** The number of {{n}} placeholders of a template's text: what Meta counts the parameters against. */
const placeholders = (text: string) => new Set(text.match(/\{\{\d+\}\}/g)).size;

// The fake knows our templates as the operator submits them (docs/operations.md): a name unknown
// to it, or a parameter count that differs from the submitted text, is refused as Meta refuses it.
const fake = createWhatsAppFake({
  accessToken: TOKEN,
  phoneNumberId: NUMBER_ID,
  onWhatsApp: [ON_WHATSAPP],
  templates: Object.fromEntries(WHATSAPP_TEMPLATES.map((tpl) => [tpl.name, placeholders(tpl.text.en)])),
  log: {},
});
await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
const apiUrl = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/v21.0`;
t.teardown(() => fake.close());

const sender = createWhatsAppSender({ apiUrl, phoneNumberId: NUMBER_ID, accessToken: TOKEN, timeoutMs: 2_000 });
const paid = (to = ON_WHATSAPP) => ({
  to,
  kind: 'purchase.paid' as const,
  key: 'purchase.paid:purchase:42:',
  template: whatsAppTemplate(
    'purchase.paid',
    { itemTitle: 'Farmakologi Dasar', amount: 350000, courseUrl: 'https://lms.test/learn/7' },
    'id',
    'Asia/Jakarta',
  ),
});

t.test('sent: the wamid comes back; the template, language and parameters arrive as documented', async (t) => {
  const result = await sender.send(paid());
  t.match(result.providerMessageId, /^wamid\./);
  const got = fake.messages.at(-1)!;
  t.equal(got.id, result.providerMessageId);
  t.equal(got.to, ON_WHATSAPP);
  t.same(got.template, {
    name: 'lms_purchase_paid',
    language: 'id',
    parameters: ['Farmakologi Dasar', 'Rp 350.000', 'https://lms.test/learn/7'],
  });
  t.same(got.components, [
    {
      type: 'body',
      parameters: [
        { type: 'text', text: 'Farmakologi Dasar' },
        { type: 'text', text: 'Rp 350.000' },
        { type: 'text', text: 'https://lms.test/learn/7' },
      ],
    },
  ]);
});

t.test('every kind and the phone confirmation are accepted by a Cloud API that knows the submitted templates', async (t) => {
  for (const kind of NOTIFICATION_KINDS) {
    for (const locale of ['id', 'en'] as const) {
      const template = whatsAppTemplate(kind, SAMPLE_DATA[kind] as never, locale, 'Asia/Jakarta');
      const result = await sender.send({ to: ON_WHATSAPP, kind, key: `${kind}:x:`, template });
      t.match(result.providerMessageId, /^wamid\./, `${kind} (${locale})`);
    }
  }
  const message = phoneConfirmationMessage({ to: ON_WHATSAPP, code: '482913', locale: 'en', key: 'phone:1:1' });
  const result = await sender.send(message);
  t.match(result.providerMessageId, /^wamid\./);
  const got = fake.messages.at(-1)!;
  t.same(got.template, { name: 'lms_phone_confirmation', language: 'en', parameters: ['482913'] });
  t.match(
    got.components[1],
    { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: '482913' }] },
    'the copy-code button carries the code',
  );
});

t.test('429 is temporary, and the same message then goes through', async (t) => {
  fake.failNext(429);
  const err = await sender.send(paid()).catch((e: unknown) => e);
  t.type(err, TemporaryDeliveryError);
  t.match((err as Error).message, /429, code 130429: \(#130429\) Rate limit hit/, "the provider's words are in the error");
  const result = await sender.send(paid());
  t.match(result.providerMessageId, /^wamid\./);
});

t.test('500 is temporary', async (t) => {
  fake.failNext(500);
  await t.rejects(sender.send(paid()), TemporaryDeliveryError);
});

t.test('a number not on WhatsApp is permanent, with the provider message', async (t) => {
  const before = fake.messages.length;
  const err = await sender.send(paid('6289999999999')).catch((e: unknown) => e);
  t.type(err, PermanentDeliveryError);
  t.match((err as Error).message, /400, code 131026: Message undeliverable/);
  t.equal(fake.messages.length, before, 'nothing recorded as sent');
});

t.test('an expired token (190) and a wrong one are permanent, naming the setting', async (t) => {
  fake.expireToken(true);
  t.teardown(() => fake.expireToken(false));
  const err = await sender.send(paid()).catch((e: unknown) => e);
  t.type(err, PermanentDeliveryError);
  t.match((err as Error).message, /401, code 190\/463: Error validating access token: Session has expired.*WHATSAPP_ACCESS_TOKEN/);
  fake.expireToken(false);
  const wrong = createWhatsAppSender({ apiUrl, phoneNumberId: NUMBER_ID, accessToken: 'not-the-token-0123456789', timeoutMs: 2_000 });
  await t.rejects(wrong.send(paid()), PermanentDeliveryError);
});

t.test('a hanging Cloud API is cut by the timeout: temporary', async (t) => {
  fake.failNext('hang');
  const quick = createWhatsAppSender({ apiUrl, phoneNumberId: NUMBER_ID, accessToken: TOKEN, timeoutMs: 200 });
  const err = await quick.send(paid()).catch((e: unknown) => e);
  t.type(err, TemporaryDeliveryError);
  t.match((err as Error).message, /no answer within 200 ms/);
});

t.test('nothing listening is temporary; a number that is not E.164 digits is permanent before any call', async (t) => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const nowhere = createWhatsAppSender({
    apiUrl: `http://127.0.0.1:${port}/v21.0`,
    phoneNumberId: NUMBER_ID,
    accessToken: TOKEN,
    timeoutMs: 2_000,
  });
  await t.rejects(nowhere.send(paid()), TemporaryDeliveryError);
  await t.rejects(sender.send(paid('+62 812 3456 7890')), PermanentDeliveryError);
});

t.test('an answer larger than the bound is not read whole; a 200 without a message id is not retried', async (t) => {
  const big = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ messages: [{ id: 'wamid.x' }], padding: 'x'.repeat(200_000) }));
  });
  await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => big.close(resolve)));
  const port = (big.address() as AddressInfo).port;
  const bounded = createWhatsAppSender({
    apiUrl: `http://127.0.0.1:${port}/v21.0`,
    phoneNumberId: NUMBER_ID,
    accessToken: TOKEN,
    timeoutMs: 2_000,
  });
  const err = await bounded.send(paid()).catch((e: unknown) => e);
  t.type(err, PermanentDeliveryError);
  t.match((err as Error).message, /without a message id; not retried/);
});

t.test('the channel is off unless the phone number id and the token are set; one without the other stops the start', async (t) => {
  t.equal(whatsAppSenderFromConfig(testConfig()), null);
  t.ok(whatsAppSenderFromConfig(testConfig({ WHATSAPP_PHONE_NUMBER_ID: NUMBER_ID, WHATSAPP_ACCESS_TOKEN: TOKEN })));
  const { loadConfig } = await import('../../../src/config.js');
  t.throws(() => loadConfig({ WHATSAPP_PHONE_NUMBER_ID: NUMBER_ID }), /WHATSAPP_PHONE_NUMBER_ID and WHATSAPP_ACCESS_TOKEN: set both/);
  t.equal(loadConfig({}).WHATSAPP_API_URL, 'https://graph.facebook.com/v21.0');
});
