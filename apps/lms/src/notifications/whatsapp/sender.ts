import type { LmsConfig } from '../../config.js';
import {
  type NotificationKind,
  type NotificationLocale,
  type OutgoingWhatsApp,
  PermanentDeliveryError,
  type SendResult,
  TemporaryDeliveryError,
  type WhatsAppSender,
} from '../contract.js';
import { isAuthenticationTemplate } from './templates.js';

// The WhatsApp channel: one template message per send, through Meta's WhatsApp Business Cloud API
// (docs/operations.md, "WhatsApp set-up"):
//   POST {apiUrl}/{phone-number-id}/messages, Authorization: Bearer <token>
//   {messaging_product:'whatsapp', recipient_type:'individual', to, type:'template',
//    template:{name, language:{code}, components:[{type:'body', parameters:[{type:'text', text}]}]}}
// answered {messaging_product, contacts:[{input, wa_id}], messages:[{id:'wamid....'}]}, or an
// error {error:{message, type, code, error_subcode, fbtrace_id}}. Whether the send may succeed
// later decides the error's class: the queue retries a TemporaryDeliveryError with backoff and
// fails a PermanentDeliveryError at once.

/** A message to send: a notification (the contract's), or the phone confirmation code (not a notification kind). */
export type OutgoingWhatsAppMessage = Omit<OutgoingWhatsApp, 'kind'> & { kind: NotificationKind | 'phone_confirmation' };

export interface WhatsAppSenderOptions {
  /** The Graph API's base URL with its version: https://graph.facebook.com/v21.0. */
  apiUrl: string;
  /** The sending number's id (WhatsApp Manager), not the number itself. */
  phoneNumberId: string;
  /** A system user's access token with the whatsapp_business_messaging permission. */
  accessToken: string;
  /** The deadline of the whole exchange: connect, send, read the answer. */
  timeoutMs: number;
  /** At most this many bytes of an answer are read (default 64 KiB: a real one is a few hundred). */
  maxAnswerBytes?: number;
}

export interface WhatsAppChannel extends WhatsAppSender {
  send(message: OutgoingWhatsAppMessage): Promise<SendResult>;
}

const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Error codes that say "not now" whatever the HTTP status they come with: throughput and pair rate
 * limits (130429, 131056, 80007, 4), the spam rate limit (131048), Meta's own trouble (1 unknown,
 * 2 service, 131000 something went wrong, 131016 service unavailable).
 */
const TEMPORARY_CODES = new Set([1, 2, 4, 80007, 130429, 131000, 131016, 131048, 131056]);

/** The Cloud API's error answer, as far as it is read. */
interface GraphError {
  message?: unknown;
  type?: unknown;
  code?: unknown;
  error_subcode?: unknown;
  error_data?: { details?: unknown };
  fbtrace_id?: unknown;
}

/** The WhatsApp channel from the configuration; null when it is off (no phone number id and token). */
export function whatsAppSenderFromConfig(
  config: Pick<LmsConfig, 'WHATSAPP_API_URL' | 'WHATSAPP_PHONE_NUMBER_ID' | 'WHATSAPP_ACCESS_TOKEN' | 'WHATSAPP_TIMEOUT_MS'>,
): WhatsAppChannel | null {
  if (!config.WHATSAPP_PHONE_NUMBER_ID || !config.WHATSAPP_ACCESS_TOKEN) return null;
  return createWhatsAppSender({
    apiUrl: config.WHATSAPP_API_URL,
    phoneNumberId: config.WHATSAPP_PHONE_NUMBER_ID,
    accessToken: config.WHATSAPP_ACCESS_TOKEN,
    timeoutMs: config.WHATSAPP_TIMEOUT_MS,
  });
}

/** The body the Cloud API documents for a template message. */
export function templateMessageBody(message: OutgoingWhatsAppMessage): Record<string, unknown> {
  const { name, language, parameters } = message.template;
  const components: Record<string, unknown>[] = [{ type: 'body', parameters: parameters.map((text) => ({ type: 'text', text })) }];
  // An authentication template (the phone confirmation code) has a copy-code button, which Meta
  // requires to be sent with the code too (its URL button at index 0).
  if (isAuthenticationTemplate(name) && parameters.length > 0) {
    components.push({ type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: parameters[0] }] });
  }
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: message.to,
    type: 'template',
    template: { name, language: { code: language satisfies NotificationLocale }, components },
  };
}

export function createWhatsAppSender(options: WhatsAppSenderOptions): WhatsAppChannel {
  const url = `${options.apiUrl.replace(/\/+$/, '')}/${encodeURIComponent(options.phoneNumberId)}/messages`;
  const maxBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;

  return {
    async send(message) {
      if (!/^\d{6,20}$/.test(message.to)) {
        // E.164 without '+': anything else is a record's mistake that no retry mends.
        throw new PermanentDeliveryError(`not a WhatsApp number (E.164 digits without '+'): ${JSON.stringify(message.to)}`);
      }
      const controller = new AbortController();
      // One deadline for the whole exchange, the answer's body included (a server that sends its
      // headers and then holds the body is cut too).
      const timer = setTimeout(() => controller.abort(), options.timeoutMs);
      let status: number;
      let text: string | null;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${options.accessToken}`, 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(templateMessageBody(message)),
          redirect: 'error',
          signal: controller.signal,
        });
        status = res.status;
        text = await readBounded(res, maxBytes);
      } catch (err) {
        const why = controller.signal.aborted ? `no answer within ${options.timeoutMs} ms` : describe(err);
        throw new TemporaryDeliveryError(`WhatsApp Cloud API unreachable: ${why}`);
      } finally {
        clearTimeout(timer);
      }
      return answer(status, text);
    },
  };
}

/** The body as text, or null when it is longer than maxBytes (the rest is not read). */
async function readBounded(res: Response, maxBytes: number): Promise<string | null> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parse(text: string | null): unknown {
  if (text === null || text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The wamid of a 2xx answer, or the classified error of any other. */
function answer(status: number, text: string | null): SendResult {
  const body = parse(text) as { messages?: { id?: unknown }[]; error?: GraphError } | null;
  if (status >= 200 && status < 300) {
    const id = body?.messages?.[0]?.id;
    if (typeof id === 'string' && id.length > 0 && id.length <= 512) return { providerMessageId: id };
    // Accepted, perhaps sent: a retry could send it twice, so it is not retried.
    throw new PermanentDeliveryError(`WhatsApp Cloud API answered ${status} without a message id; not retried, it may have been sent`);
  }
  const error = body?.error && typeof body.error === 'object' ? body.error : null;
  const code = typeof error?.code === 'number' ? error.code : null;
  const said = providerSays(status, error);
  if (status === 429 || status >= 500 || (code !== null && TEMPORARY_CODES.has(code))) {
    throw new TemporaryDeliveryError(said);
  }
  if (status === 401 || status === 403 || code === 190) {
    throw new PermanentDeliveryError(`${said} (renew WHATSAPP_ACCESS_TOKEN or its permissions)`);
  }
  // 400 and the rest: the number is not on WhatsApp (131026), not valid (131009, 100), the
  // template or its parameters do not match what Meta approved (132xxx), the 24-hour window is
  // closed (131047)... The same request would be refused again.
  throw new PermanentDeliveryError(said);
}

/** "WhatsApp Cloud API 400, code 131026: Message undeliverable (fbtrace_id ...)", bounded. */
function providerSays(status: number, error: GraphError | null): string {
  const parts = [`WhatsApp Cloud API ${status}`];
  if (error) {
    const codes = [error.code, error.error_subcode].filter((c) => typeof c === 'number').join('/');
    if (codes) parts.push(`, code ${codes}`);
    if (typeof error.message === 'string') parts.push(`: ${error.message.slice(0, 500)}`);
    const details = error.error_data?.details;
    if (typeof details === 'string') parts.push(` (${details.slice(0, 500)})`);
    if (typeof error.fbtrace_id === 'string') parts.push(` [fbtrace_id ${error.fbtrace_id.slice(0, 100)}]`);
  }
  return parts.join('');
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return err instanceof Error ? err.message : String(err);
}
