import { timingSafeEqual, createHash } from 'node:crypto';
import { ErrorResponse, jsonTextShapeProblem } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { BadRequestError, ForbiddenError, UnauthorizedError, UnavailableError } from '../../errors.js';
import { isSignedBy, type OnWhatsAppStatus, SIGNATURE_HEADER, statusUpdates, WebhookBody } from '../../notifications/whatsapp/webhook.js';

export interface WhatsAppWebhookOptions {
  /** What a delivered/read/failed status does (the notification records); unset: logged only. */
  onStatus?: OnWhatsAppStatus;
}

/**
 * The largest webhook accepted. Meta batches statuses, but a body is a few KiB; anything near
 * this is not Meta's, and is refused (413) before it is read whole.
 */
export const WHATSAPP_WEBHOOK_BODY_LIMIT = 256 * 1024;

/** Meta's challenge is a number; what is echoed is bounded and plain, whatever is sent. */
const CHALLENGE = /^[A-Za-z0-9._-]{1,200}$/;

const sameSecret = (a: string, b: string) =>
  // Hashed first, so the comparison takes the same time whatever the lengths.
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

/**
 * Meta's status webhooks (docs/operations.md, "WhatsApp set-up"), public: the credential is the
 * signature, never a cookie (so no CSRF rule applies).
 *   GET  /webhooks/whatsapp  the subscription handshake: hub.mode=subscribe, hub.verify_token
 *                            equal to WHATSAPP_VERIFY_TOKEN → hub.challenge as plain text.
 *   POST /webhooks/whatsapp  statuses, signed with WHATSAPP_APP_SECRET (X-Hub-Signature-256).
 * Unset secrets: 503 (the channel's webhooks are not set up here).
 */
const whatsAppWebhookRoutes: FastifyPluginAsyncZod<WhatsAppWebhookOptions> = async (app, options) => {
  const { WHATSAPP_APP_SECRET: appSecret, WHATSAPP_VERIFY_TOKEN: verifyToken, WHATSAPP_PHONE_NUMBER_ID: phoneNumberId } = app.config;
  const onStatus: OnWhatsAppStatus =
    options.onStatus ??
    (async (update) => {
      app.log.info({ wamid: update.providerMessageId, status: update.status }, 'WhatsApp status (no records to update)');
    });

  // This scope reads bodies as raw bytes, whatever their type: the signature is over exactly the
  // bytes sent, and nothing parses them before it is checked.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WHATSAPP_WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));

  app.get(
    '/webhooks/whatsapp',
    {
      config: { public: true },
      schema: {
        hide: true,
        querystring: z.object({
          'hub.mode': z.string().max(40).optional(),
          'hub.verify_token': z.string().max(1000).optional(),
          'hub.challenge': z.string().max(1000).optional(),
        }),
        response: { 200: z.string(), 400: ErrorResponse, 403: ErrorResponse, 503: ErrorResponse },
      },
    },
    async (request, reply) => {
      if (!verifyToken) throw new UnavailableError('WhatsApp webhooks are not set up here (WHATSAPP_VERIFY_TOKEN is unset)');
      const { 'hub.mode': mode, 'hub.verify_token': token, 'hub.challenge': challenge } = request.query;
      if (mode !== 'subscribe' || token === undefined || !sameSecret(token, verifyToken)) {
        throw new ForbiddenError('The webhook verification token does not match');
      }
      if (challenge === undefined || !CHALLENGE.test(challenge)) throw new BadRequestError("Invalid query parameter 'hub.challenge'");
      return reply.type('text/plain; charset=utf-8').send(challenge);
    },
  );

  app.post(
    '/webhooks/whatsapp',
    {
      config: { public: true, csrf: false },
      bodyLimit: WHATSAPP_WEBHOOK_BODY_LIMIT,
      schema: {
        hide: true,
        response: {
          200: z.object({ received: z.number().int() }),
          400: ErrorResponse,
          401: ErrorResponse,
          413: ErrorResponse,
          503: ErrorResponse,
        },
      },
    },
    async (request) => {
      if (!appSecret) throw new UnavailableError('WhatsApp webhooks are not set up here (WHATSAPP_APP_SECRET is unset)');
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      // The signature first: an unsigned or forged body is never parsed.
      if (!isSignedBy(raw, request.headers[SIGNATURE_HEADER], appSecret)) {
        request.log.warn('WhatsApp webhook refused: missing or wrong X-Hub-Signature-256');
        throw new UnauthorizedError('Missing or invalid X-Hub-Signature-256');
      }
      const text = raw.toString('utf8');
      const shape = jsonTextShapeProblem(text);
      if (shape !== null) throw new BadRequestError(shape);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new BadRequestError('Invalid request body: not JSON');
      }
      const parsed = WebhookBody.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new BadRequestError(`Invalid request body: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
      }
      const updates = statusUpdates(parsed.data, phoneNumberId);
      // In order: a row's later status is handed on after its earlier one.
      for (const update of updates) await onStatus(update);
      return { received: updates.length };
    },
  );
};

export default whatsAppWebhookRoutes;
