import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import t from 'tap';
import { createWhatsAppFake } from '../src/whatsapp-fake.js';

// The fake against the documented protocol, through HTTP on port 0. (The LMS's sender is tested
// against it in apps/lms/test/notifications/whatsapp/.)

const TOKEN = 'fake-token-0123456789abcdef';
const NUMBER_ID = '106540352242922';
const SECRET = 'app-secret-0123456789';
const quiet = { info() {}, warn() {}, error() {} };
const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));

// A receiver of the status webhooks: keeps each body and its signature.
const received = [];
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: req.headers['x-hub-signature-256'] });
    res.writeHead(200).end();
  });
});
const webhookUrl = `${await listen(receiver)}/webhooks/whatsapp`;
t.teardown(() => new Promise((r) => receiver.close(r)));

const fake = createWhatsAppFake({
  accessToken: TOKEN,
  phoneNumberId: NUMBER_ID,
  onWhatsApp: ['6281234567890'],
  templates: { lms_purchase_paid: 3 },
  webhookUrl,
  appSecret: SECRET,
  log: quiet,
});
const base = await listen(fake.server);
t.teardown(() => fake.close());

const message = (overrides = {}) => ({
  messaging_product: 'whatsapp',
  recipient_type: 'individual',
  to: '6281234567890',
  type: 'template',
  template: {
    name: 'lms_purchase_paid',
    language: { code: 'id' },
    components: [{ type: 'body', parameters: ['Kursus', 'Rp 350.000', 'https://lms.test/c/1'].map((text) => ({ type: 'text', text })) }],
  },
  ...overrides,
});
const post = (body, token = TOKEN, id = NUMBER_ID) =>
  fetch(`${base}/v21.0/${id}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

t.test('a template message to a number on WhatsApp: 200 with contacts and a wamid, recorded', async (t) => {
  const res = await post(message());
  t.equal(res.status, 200);
  const body = await res.json();
  t.match(body, {
    messaging_product: 'whatsapp',
    contacts: [{ input: '6281234567890', wa_id: '6281234567890' }],
    messages: [{ id: /^wamid\./ }],
  });
  const list = await (await fetch(`${base}/_fake/messages`)).json();
  t.match(list.at(-1), { id: body.messages[0].id, to: '6281234567890', template: { name: 'lms_purchase_paid', language: 'id' } });
  t.same(list.at(-1).template.parameters, ['Kursus', 'Rp 350.000', 'https://lms.test/c/1']);
});

t.test('the documented errors: token, number id, shape, template, parameters, number not on WhatsApp', async (t) => {
  const cases = [
    [await post(message(), null), 401, 2500],
    [await post(message(), 'wrong-token'), 401, 190],
    [await post(message(), TOKEN, '999'), 400, 100],
    [await post(message({ messaging_product: 'sms' })), 400, 100],
    [await post(message({ type: 'text' })), 400, 100],
    [await post(message({ template: { name: 'lms_unknown', language: { code: 'id' }, components: [] } })), 404, 132001],
    [
      await post(
        message({ template: { ...message().template, components: [{ type: 'body', parameters: [{ type: 'text', text: 'a' }] }] } }),
      ),
      400,
      132000,
    ],
    [await post(message({ to: '6289999999999' })), 400, 131026],
  ];
  for (const [res, status, code] of cases) {
    t.equal(res.status, status);
    const body = await res.json();
    t.equal(body.error.code, code, body.error.message);
    t.type(body.error.fbtrace_id, 'string');
  }
  const newline = message();
  newline.template.components[0].parameters[0].text = 'two\nlines';
  const res = await post(newline);
  t.equal((await res.json()).error.code, 132018, 'a parameter with a line break is refused');
});

t.test('told to: 429, then 500, then an expired token; the next send succeeds again', async (t) => {
  await fetch(`${base}/_fake/fail`, { method: 'POST', body: JSON.stringify({ status: 429 }) });
  fake.failNext(500);
  const first = await post(message());
  t.equal(first.status, 429);
  t.equal((await first.json()).error.code, 130429);
  const second = await post(message());
  t.equal(second.status, 500);
  t.equal((await second.json()).error.code, 131000);
  await fetch(`${base}/_fake/token`, { method: 'POST', body: JSON.stringify({ expired: true }) });
  const expired = await post(message());
  t.equal(expired.status, 401);
  t.match(await expired.json(), { error: { code: 190, error_subcode: 463 } });
  fake.expireToken(false);
  t.equal((await post(message())).status, 200);
});

t.test('told to hang: the request gets no answer until the client gives up', async (t) => {
  fake.failNext('hang');
  await t.rejects(
    fetch(`${base}/v21.0/${NUMBER_ID}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(message()),
      signal: AbortSignal.timeout(300),
    }),
    { name: 'TimeoutError' },
  );
});

t.test('status webhooks: signed with the app secret over the exact body, in the documented shape', async (t) => {
  const sent = await (await post(message())).json();
  const id = sent.messages[0].id;
  const res = await fetch(`${base}/_fake/status`, { method: 'POST', body: JSON.stringify({ id, status: 'failed', errorCode: 131026 }) });
  t.same(await res.json(), { receiverStatus: 200 });
  const last = received.at(-1);
  t.equal(last.signature, `sha256=${createHmac('sha256', SECRET).update(last.body).digest('hex')}`);
  t.match(JSON.parse(last.body), {
    object: 'whatsapp_business_account',
    entry: [
      {
        changes: [
          {
            field: 'messages',
            value: {
              metadata: { phone_number_id: NUMBER_ID },
              statuses: [{ id, status: 'failed', recipient_id: '6281234567890', errors: [{ code: 131026 }] }],
            },
          },
        ],
      },
    ],
  });
});
