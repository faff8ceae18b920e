// A local stand-in for Meta's WhatsApp Business Cloud API, speaking the part the LMS uses exactly
// as Meta documents it, so the LMS's WhatsApp channel is tested (and demonstrated) against the
// protocol rather than against itself:
//
//   POST /v{N}/{phone-number-id}/messages   Authorization: Bearer <token>
//     {messaging_product:'whatsapp', recipient_type:'individual', to, type:'template',
//      template:{name, language:{code}, components:[{type:'body', parameters:[{type:'text', text}]}]}}
//     → 200 {messaging_product:'whatsapp', contacts:[{input, wa_id}], messages:[{id:'wamid....'}]}
//     → 4xx/5xx {error:{message, type, code, error_subcode?, error_data?, fbtrace_id}}
//
// and, like Meta, it POSTs status webhooks signed with the app secret
// (`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`) to a configured URL.
// It imports nothing but node's own modules.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const MAX_BODY_BYTES = 64 * 1024;
const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/;

const traceId = () => randomBytes(9).toString('base64url');
const wamid = () => `wamid.${randomBytes(24).toString('base64url')}`;

/** Meta's error answer. */
function graphError(status, code, message, extra = {}) {
  return { status, body: { error: { message, type: extra.type ?? 'OAuthException', code, ...extra.fields, fbtrace_id: traceId() } } };
}

/** The documented errors the fake answers, by name. */
const ERRORS = {
  noToken: () =>
    graphError(401, 2500, 'An active access token must be used to query information about the current user.', { type: 'OAuthException' }),
  badToken: () => graphError(401, 190, 'Invalid OAuth access token - Cannot parse access token'),
  expiredToken: () =>
    graphError(401, 190, 'Error validating access token: Session has expired on Friday, 27-Nov-26 10:00:00 PST.', {
      fields: { error_subcode: 463 },
    }),
  unknownNumberId: (id) =>
    graphError(
      400,
      100,
      `Unsupported post request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      {
        type: 'GraphMethodException',
        fields: { error_subcode: 33 },
      },
    ),
  invalidParameter: (details) =>
    graphError(400, 100, '(#100) Invalid parameter', { fields: { error_data: { messaging_product: 'whatsapp', details } } }),
  undeliverable: () =>
    graphError(400, 131026, 'Message undeliverable', {
      fields: { error_data: { messaging_product: 'whatsapp', details: 'Message Undeliverable.' } },
    }),
  templateMissing: (name, code) =>
    graphError(404, 132001, '(#132001) Template name does not exist in the translation', {
      fields: { error_data: { messaging_product: 'whatsapp', details: `template name (${name}) does not exist in ${code}` } },
    }),
  parameterCount: (expected, got) =>
    graphError(400, 132000, '(#132000) Number of parameters does not match the expected number of params', {
      fields: {
        error_data: {
          messaging_product: 'whatsapp',
          details: `body: number of localizable_params (${got}) does not match the expected number of params (${expected})`,
        },
      },
    }),
  parameterFormat: () =>
    graphError(400, 132018, '(#132018) There was an issue with the parameters in your template.', {
      fields: {
        error_data: {
          messaging_product: 'whatsapp',
          details: 'Param text cannot have new-line/tab characters or more than 4 consecutive spaces',
        },
      },
    }),
  rateLimit: () =>
    graphError(429, 130429, '(#130429) Rate limit hit', {
      fields: { error_data: { messaging_product: 'whatsapp', details: 'Cloud API message throughput has been reached.' } },
    }),
  serverError: () =>
    graphError(500, 131000, '(#131000) Something went wrong', {
      fields: { error_data: { messaging_product: 'whatsapp', details: 'Something went wrong.' } },
    }),
};

/** What is wrong with a message body, as Meta's details say it; null when it is a template message the fake takes. */
function shapeProblem(body) {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'The request body must be a JSON object';
  if (body.messaging_product !== 'whatsapp') return "Param messaging_product must be 'whatsapp'";
  if (body.recipient_type !== undefined && body.recipient_type !== 'individual') return "Param recipient_type must be 'individual'";
  if (typeof body.to !== 'string' || !/^\+?\d{6,20}$/.test(body.to)) return 'Param to must be a phone number';
  if (body.type !== 'template') return "Param type must be 'template' (this fake takes template messages only)";
  const t = body.template;
  if (!t || typeof t !== 'object') return 'Param template is required';
  if (typeof t.name !== 'string' || !TEMPLATE_NAME.test(t.name)) return 'Param template[name] is invalid';
  if (!t.language || typeof t.language.code !== 'string' || !/^[a-z]{2,3}(_[A-Z]{2})?$/.test(t.language.code))
    return 'Param template[language][code] is invalid';
  if (t.components !== undefined && !Array.isArray(t.components)) return 'Param template[components] must be an array';
  for (const [i, c] of (t.components ?? []).entries()) {
    if (!c || !['header', 'body', 'button'].includes(c.type)) return `Param template[components][${i}][type] is invalid`;
    if (!Array.isArray(c.parameters)) return `Param template[components][${i}][parameters] must be an array`;
    for (const [j, p] of c.parameters.entries()) {
      if (p?.type !== 'text' || typeof p.text !== 'string' || p.text === '')
        return `Param template[components][${i}][parameters][${j}] must be {type:'text', text}`;
    }
  }
  return null;
}

/** Reads at most `limit` bytes; more: null. */
function readBody(req, limit) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    });
    req.on('end', () => resolve(size > limit ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** Meta's status webhook body for one message. */
export function statusWebhookBody({ id, status, recipient, phoneNumberId, timestamp, errorCode }) {
  const entry = { id, status, timestamp: String(timestamp ?? Math.floor(Date.now() / 1000)), recipient_id: recipient };
  if (status === 'failed') {
    const code = errorCode ?? 131026;
    entry.errors = [
      {
        code,
        title: code === 131026 ? 'Message undeliverable' : 'Failed',
        message: 'Message undeliverable',
        error_data: { details: 'Message Undeliverable.' },
      },
    ];
  }
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
              statuses: [entry],
            },
            field: 'messages',
          },
        ],
      },
    ],
  };
}

/**
 * The fake as a Node HTTP server (not yet listening). Options:
 *   accessToken     the one valid bearer token
 *   phoneNumberId   the sending number's id the URL must name
 *   onWhatsApp      the numbers (E.164 digits) that are "on WhatsApp"; others get 131026
 *   templates       optional {name: number of body parameters}: unknown names and wrong counts are refused as Meta does
 *   webhookUrl, appSecret   where signed status webhooks go (sendStatus)
 *   autoDeliver     after each accepted message, POST a `delivered` status (the demo)
 * Besides the API, for tests and the demo:
 *   GET  /_fake/messages             the messages accepted, oldest first
 *   POST /_fake/fail {status: 429|500|"hang", times?: 1}   the next sends answer so
 *   POST /_fake/token {expired: true|false}                the token expires (190/463)
 *   POST /_fake/status {id, status, errorCode?}            POSTs a signed status webhook; answers the receiver's status
 */
export function createWhatsAppFake({
  accessToken,
  phoneNumberId,
  onWhatsApp = [],
  templates,
  webhookUrl,
  appSecret,
  autoDeliver = false,
  log = console,
}) {
  const messages = [];
  const numbers = new Set(onWhatsApp);
  /** The forced answers of the next sends, in order. */
  const failures = [];
  let tokenExpired = false;
  /** Requests held open ("hang"), released when the server closes. */
  const hanging = new Set();

  async function sendStatus({ id, status, errorCode, timestamp }) {
    if (!webhookUrl || !appSecret) throw new Error('sendStatus needs webhookUrl and appSecret');
    const message = messages.find((m) => m.id === id);
    const body = JSON.stringify(statusWebhookBody({ id, status, errorCode, timestamp, phoneNumberId, recipient: message?.to ?? '' }));
    const signature = `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
    const res = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      body,
      signal: AbortSignal.timeout(5_000),
    });
    await res.arrayBuffer();
    return res.status;
  }

  /** The answer to a send, or null to hang. */
  function answerSend(req, idInUrl, raw) {
    const auth = String(req.headers.authorization ?? '');
    if (!auth.startsWith('Bearer ')) return ERRORS.noToken();
    if (auth.slice(7) !== accessToken) return ERRORS.badToken();
    if (tokenExpired) return ERRORS.expiredToken();
    if (idInUrl !== phoneNumberId) return ERRORS.unknownNumberId(idInUrl);
    const forced = failures.shift();
    if (forced === 'hang') return null;
    if (forced === 429) return ERRORS.rateLimit();
    if (forced === 500) return ERRORS.serverError();
    let body;
    try {
      body = JSON.parse(raw);
    } catch {
      return ERRORS.invalidParameter('The request body is not JSON');
    }
    const problem = shapeProblem(body);
    if (problem) return ERRORS.invalidParameter(problem);
    const { name, language, components = [] } = body.template;
    const parameters = components.filter((c) => c.type === 'body').flatMap((c) => c.parameters.map((p) => p.text));
    if (templates) {
      if (!Object.hasOwn(templates, name)) return ERRORS.templateMissing(name, language.code);
      if (templates[name] !== parameters.length) return ERRORS.parameterCount(templates[name], parameters.length);
    }
    if (parameters.some((text) => /[\n\t]| {5}/.test(text))) return ERRORS.parameterFormat();
    const to = body.to.replace(/^\+/, '');
    if (!numbers.has(to)) return ERRORS.undeliverable();
    const id = wamid();
    messages.push({ id, to, template: { name, language: language.code, parameters }, components, at: new Date().toISOString() });
    if (autoDeliver && webhookUrl && appSecret) {
      setTimeout(() => sendStatus({ id, status: 'delivered' }).catch((err) => log.warn?.(`status webhook failed: ${err.message}`)), 200);
    }
    return { status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: to }], messages: [{ id }] } };
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake.local');
    try {
      const sendPath = url.pathname.match(/^\/v\d+\.\d+\/([^/]+)\/messages$/);
      if (req.method === 'POST' && sendPath) {
        const raw = await readBody(req, MAX_BODY_BYTES);
        if (raw === null) return send(res, 413, ERRORS.invalidParameter('The request body is too large').body);
        const answer = answerSend(req, decodeURIComponent(sendPath[1]), raw);
        if (answer === null) {
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        }
        return send(res, answer.status, answer.body);
      }
      if (req.method === 'GET' && url.pathname === '/_fake/messages') return send(res, 200, messages);
      if (req.method === 'POST' && url.pathname.startsWith('/_fake/')) {
        const raw = await readBody(req, MAX_BODY_BYTES);
        const body = raw ? JSON.parse(raw) : {};
        if (url.pathname === '/_fake/fail' && [429, 500, 'hang'].includes(body.status)) {
          for (let i = 0; i < (body.times ?? 1); i++) failures.push(body.status);
          return send(res, 200, { pending: failures.length });
        }
        if (url.pathname === '/_fake/token') {
          tokenExpired = body.expired === true;
          return send(res, 200, { expired: tokenExpired });
        }
        if (url.pathname === '/_fake/status' && typeof body.id === 'string') {
          return send(res, 200, { receiverStatus: await sendStatus(body) });
        }
        return send(res, 400, { error: 'unknown control request' });
      }
      return send(res, 404, {
        error: { message: `Unknown path ${url.pathname}`, type: 'GraphMethodException', code: 100, fbtrace_id: traceId() },
      });
    } catch (err) {
      log.error?.(err);
      if (!res.headersSent) send(res, 500, { error: { message: 'fake error', type: 'OAuthException', code: 1, fbtrace_id: traceId() } });
    }
  });
  server.on('close', () => {
    for (const res of hanging) res.destroy();
  });

  return {
    server,
    /** The messages accepted, oldest first. */
    messages,
    /** The next `times` sends answer 429 (130429), 500 (131000) or hang. */
    failNext(status, times = 1) {
      for (let i = 0; i < times; i++) failures.push(status);
    },
    expireToken(expired = true) {
      tokenExpired = expired;
    },
    addNumber(number) {
      numbers.add(number);
    },
    /** POSTs a signed status webhook about a message to webhookUrl; resolves to the receiver's HTTP status. */
    sendStatus,
    /** Stops listening and drops held requests. */
    close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections?.();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
