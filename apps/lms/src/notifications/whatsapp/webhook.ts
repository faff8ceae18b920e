import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

// What Meta's status webhooks say about the messages we sent (docs/operations.md, "WhatsApp
// set-up"): POST {PUBLIC_URL}/webhooks/whatsapp with `X-Hub-Signature-256: sha256=<hex HMAC-SHA256
// of the raw body under the app secret>` and
//   {object:'whatsapp_business_account', entry:[{id, changes:[{field:'messages', value:{
//     metadata:{phone_number_id}, statuses:[{id:'wamid...', status, timestamp, recipient_id, errors?}]}}]}]}
// The route (routes/webhooks/whatsapp.ts) checks the signature before anything reads the body,
// then hands each delivered/read/failed status to the injected OnWhatsAppStatus.

/** The statuses passed on: `sent` is already known from the API's answer. */
export const WHATSAPP_STATUSES = ['delivered', 'read', 'failed'] as const;
export type WhatsAppStatus = (typeof WHATSAPP_STATUSES)[number];

export interface WhatsAppStatusUpdate {
  /** The wamid the send got (SendResult.providerMessageId): the notification row's provider id. */
  providerMessageId: string;
  status: WhatsAppStatus;
  /** When it happened, by Meta's clock. */
  at: Date;
  /** The recipient's WhatsApp id (their number, E.164 digits). */
  recipient: string;
  /** Why it failed (status `failed`): Meta's code and title, e.g. 131026 "Message undeliverable". */
  error?: { code: number; title: string; details?: string };
}

/**
 * What the LMS does with a status (the notification records update the row of that provider id).
 * It must be idempotent and never move a row back: Meta retries a webhook it got no 200 for, may
 * send statuses out of order, and anyone who once saw a signed body can send it again (the
 * signature has no timestamp). `supersedes` says which status wins.
 */
export type OnWhatsAppStatus = (update: WhatsAppStatusUpdate) => Promise<void>;

/**
 * Whether `next` replaces `current` on a message: read after delivered, never the reverse;
 * failed is final. A replayed or late status changes nothing.
 */
export function supersedes(current: WhatsAppStatus | 'sent' | null, next: WhatsAppStatus): boolean {
  if (current === null || current === 'sent') return true;
  if (current === 'failed' || current === 'read') return false;
  return next === 'read' || next === 'failed';
}

export const SIGNATURE_HEADER = 'x-hub-signature-256';

/** `sha256=<hex>` of the raw body under the app secret, as Meta signs it. */
export function signBody(body: Buffer | string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
}

/** Whether the header is Meta's signature of exactly these bytes, compared in constant time. */
export function isSignedBy(body: Buffer, header: string | string[] | undefined, appSecret: string): boolean {
  if (typeof header !== 'string') return false;
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!match) return false;
  const expected = createHmac('sha256', appSecret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(match[1], 'hex'));
}

const StatusEntry = z.object({
  id: z.string().min(1).max(512),
  status: z.string().max(40),
  timestamp: z.string().regex(/^\d{1,12}$/),
  recipient_id: z.string().max(40).optional(),
  errors: z
    .array(
      z.object({
        code: z.number().int(),
        title: z.string().max(500).optional(),
        message: z.string().max(500).optional(),
        error_data: z.object({ details: z.string().max(1000).optional() }).optional(),
      }),
    )
    .max(20)
    .optional(),
});

/** The part of a webhook read here; anything else Meta adds (messages, pricing, conversation) is left alone. */
export const WebhookBody = z.object({
  object: z.string().max(100),
  entry: z
    .array(
      z.object({
        changes: z
          .array(
            z.object({
              field: z.string().max(100),
              value: z.object({
                metadata: z.object({ phone_number_id: z.string().max(40) }).optional(),
                statuses: z.array(StatusEntry).max(1000).optional(),
              }),
            }),
          )
          .max(100),
      }),
    )
    .max(100),
});

/**
 * The delivered/read/failed statuses of a webhook body for our sending number (a Meta app may
 * serve several; with `phoneNumberId` unset, every number's).
 */
export function statusUpdates(body: z.output<typeof WebhookBody>, phoneNumberId?: string): WhatsAppStatusUpdate[] {
  const updates: WhatsAppStatusUpdate[] = [];
  if (body.object !== 'whatsapp_business_account') return updates;
  for (const entry of body.entry) {
    for (const change of entry.changes) {
      if (change.field !== 'messages') continue;
      const number = change.value.metadata?.phone_number_id;
      if (phoneNumberId && number !== undefined && number !== phoneNumberId) continue;
      for (const s of change.value.statuses ?? []) {
        if (!(WHATSAPP_STATUSES as readonly string[]).includes(s.status)) continue;
        const update: WhatsAppStatusUpdate = {
          providerMessageId: s.id,
          status: s.status as WhatsAppStatus,
          at: new Date(Number(s.timestamp) * 1000),
          recipient: s.recipient_id ?? '',
        };
        const error = s.errors?.[0];
        if (s.status === 'failed' && error) {
          update.error = { code: error.code, title: error.title ?? error.message ?? '', details: error.error_data?.details };
        }
        updates.push(update);
      }
    }
  }
  return updates;
}
