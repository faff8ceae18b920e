import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { LmsConfig } from './config.js';
import { optional } from './config-schema.js';
import { NOTIFICATION_KINDS, type NotificationKind, RECEIPT_KINDS } from './notifications/contract.js';
import { type DkimOptions, type EmailSenderOptions, parseSmtpUrl } from './notifications/mail/sender.js';

// The settings of notifications and of the job queue that sends them (docs/configuration.md):
// WhatsApp, SMTP and DKIM, the kinds switched off, the log's retention, the queue's workers.
// config.ts spreads them into the LMS's settings and checks them with the rest at start.

export const notificationEnv = {
  /**
   * WhatsApp notifications through Meta's WhatsApp Business Cloud API (docs/operations.md,
   * "WhatsApp set-up"): the Graph API's base URL with its version, the sending number's id and a
   * system user's access token. The channel is off unless both the id and the token are set.
   */
  WHATSAPP_API_URL: optional(z.url()).default('https://graph.facebook.com/v21.0'),
  WHATSAPP_PHONE_NUMBER_ID: optional(z.string().regex(/^\d{1,40}$/, "the sending number's id (digits), from WhatsApp Manager")),
  WHATSAPP_ACCESS_TOKEN: optional(z.string().min(20).max(2048)),
  /** The Meta app's secret: status webhooks (POST /webhooks/whatsapp) are signed with it; unset: refused (503). */
  WHATSAPP_APP_SECRET: optional(z.string().min(16).max(256)),
  /** What Meta sends in the webhook's verification handshake (GET /webhooks/whatsapp); unset: refused (503). */
  WHATSAPP_VERIFY_TOKEN: optional(z.string().min(16).max(256)),
  /** The deadline of one send to the Cloud API (connect, send, read the answer). */
  WHATSAPP_TIMEOUT_MS: optional(z.coerce.number().int().min(100).max(120_000)).default(10_000),
  /**
   * E-mail notifications (docs/operations.md, "E-mail: SMTP and DKIM"): the SMTP server, as
   * smtp://user:password@host:587 (STARTTLS when the server offers it) or smtps://…:465 (TLS from
   * the start). Unset: no e-mail is sent. `pnpm run start` points it at the demo mail catcher.
   */
  SMTP_URL: optional(
    z.string().transform((value, ctx) => {
      try {
        parseSmtpUrl(value);
        return value;
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  ),
  /** The deployment's From: `Name <address>` or an address; an institution's own from-address wins. Unset: `LMS <no-reply@<PUBLIC_URL's host>>`. */
  MAIL_FROM: optional(
    z
      .string()
      .max(320)
      .regex(
        /^([^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/,
        'an address or "Name <address>", e.g. "LMS <no-reply@lms.example.org>"',
      ),
  ),
  /** How long connecting to the SMTP server, then its greeting, may take (ms each). */
  SMTP_CONNECT_TIMEOUT_MS: optional(z.coerce.number().int().min(100).max(120_000)).default(10_000),
  /** How long an open SMTP connection may stay silent in the middle of a send (ms). */
  SMTP_SOCKET_TIMEOUT_MS: optional(z.coerce.number().int().min(100).max(600_000)).default(30_000),
  /** SMTP connections one instance keeps open at most (the pool). */
  SMTP_POOL_MAX: optional(z.coerce.number().int().min(1).max(100)).default(5),
  /**
   * DKIM signing of every e-mail: the signing domain (d=), the selector (s=: the DNS TXT record
   * `<selector>._domainkey.<domain>` holds the public key) and the private key, a PEM of an RSA key
   * of at least 1024 bits (2048 advised), inline (`\n` escapes accepted) or in a file (not both).
   * All of domain, selector and a key, or none (unsigned).
   */
  DKIM_DOMAIN: optional(
    z.string().regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'a domain name such as lms.example.org'),
  ),
  DKIM_SELECTOR: optional(z.string().regex(/^[a-z0-9](?:[a-z0-9._-]{0,62})$/i, 'letters, digits, dots, dashes, e.g. lms2026')),
  DKIM_PRIVATE_KEY: optional(z.string()),
  DKIM_PRIVATE_KEY_FILE: optional(z.string()),
  /**
   * Notification kinds no one in this deployment receives (comma-separated, e.g.
   * `course.inactive,digest.teacher`). Receipts (docs/operations.md, "Notifications") cannot be switched off.
   */
  NOTIFICATIONS_DISABLED_KINDS: optional(z.string())
    .default('')
    .transform((v, ctx) => {
      const kinds = v
        .split(',')
        .map((k) => k.trim())
        .filter((k) => k.length > 0);
      for (const kind of kinds) {
        if (!(NOTIFICATION_KINDS as readonly string[]).includes(kind)) {
          ctx.addIssue({
            code: 'custom',
            message: `not a notification kind: ${JSON.stringify(kind)} (one of ${NOTIFICATION_KINDS.join(', ')})`,
          });
        } else if (RECEIPT_KINDS.has(kind as NotificationKind)) {
          ctx.addIssue({ code: 'custom', message: `${kind} is a receipt: it cannot be switched off` });
        }
      }
      return kinds as NotificationKind[];
    }),
  /** How long the notification log (every message, sent or not) is kept (days). */
  NOTIFICATION_LOG_RETENTION_DAYS: optional(z.coerce.number().min(1).max(3650)).default(90),
  /**
   * The key of the one-click unsubscribe links' HMAC (at least 32 characters). Unset: derived from
   * GATEWAY_SECRET; with neither, messages carry no unsubscribe link and the link is refused.
   */
  NOTIFICATION_LINK_SECRET: optional(z.string().min(32)),
  /**
   * The job queue (docs/operations.md, "Jobs"): `off` makes this instance only enqueue (its
   * requests' jobs are written, other instances run them); `on` (default) runs them too.
   */
  JOBS_WORKERS: optional(z.enum(['on', 'off'])).default('on'),
  /** How often an idle worker asks the queue for a job (seconds). */
  JOBS_POLL_SECONDS: optional(z.coerce.number().min(0.5).max(600)).default(2),
  /** How long a finished job (completed, failed, cancelled) is kept before pg-boss deletes it (days). */
  JOBS_DELETE_AFTER_DAYS: optional(z.coerce.number().min(1).max(365)).default(7),
  /** How long a closing instance waits for its running jobs before it gives them back (seconds). */
  JOBS_STOP_SECONDS: optional(z.coerce.number().min(1).max(600)).default(10),
  /**
   * How often the queue looks for runs past their expiry (a process killed mid-job) and gives
   * them to an instance again (seconds). A lost run waits for its queue's expiry, then this.
   */
  JOBS_SUPERVISE_SECONDS: optional(z.coerce.number().int().min(1).max(600)).default(60),
  /** How often expired rows are purged (minutes; the housekeeping job's cron schedule). */
  HOUSEKEEPING_INTERVAL_MINUTES: optional(z.coerce.number().int().min(1).max(60)).default(5),
};

/**
 * The notification settings that are secrets (a password in a URL, keys, tokens): a deployment
 * keeps them in its secret store, never in a file of settings. deploy/kubernetes takes each from
 * the Secret lms-secrets, docker-compose.yml from the environment (e2e tests hold them to it).
 */
export const NOTIFICATION_SECRET_VARIABLES = [
  'SMTP_URL',
  'DKIM_PRIVATE_KEY',
  'WHATSAPP_ACCESS_TOKEN',
  'WHATSAPP_APP_SECRET',
  'WHATSAPP_VERIFY_TOKEN',
  'NOTIFICATION_LINK_SECRET',
] as const satisfies readonly (keyof typeof notificationEnv)[];

/** One of the sending number's id and the token without the other is a mistake, not "channel off". */
export function checkWhatsAppPair(config: Pick<LmsConfig, 'WHATSAPP_PHONE_NUMBER_ID' | 'WHATSAPP_ACCESS_TOKEN'>): void {
  if (Boolean(config.WHATSAPP_PHONE_NUMBER_ID) !== Boolean(config.WHATSAPP_ACCESS_TOKEN)) {
    throw new Error('WHATSAPP_PHONE_NUMBER_ID and WHATSAPP_ACCESS_TOKEN: set both (WhatsApp on) or neither (off)');
  }
}

/**
 * The DKIM settings, checked: all three parts or none; the key readable, a private RSA key of at
 * least 1024 bits. Null when DKIM is off. Throws a plain Error naming the variable otherwise
 * (loadConfig turns it into a ConfigError at start).
 */
export function dkimSettings(
  config: Pick<LmsConfig, 'DKIM_DOMAIN' | 'DKIM_SELECTOR' | 'DKIM_PRIVATE_KEY' | 'DKIM_PRIVATE_KEY_FILE'>,
): DkimOptions | null {
  const { DKIM_DOMAIN: domain, DKIM_SELECTOR: selector, DKIM_PRIVATE_KEY: inline, DKIM_PRIVATE_KEY_FILE: file } = config;
  if (inline && file) throw new Error('DKIM_PRIVATE_KEY and DKIM_PRIVATE_KEY_FILE: set one, not both');
  if (!domain && !selector && !inline && !file) return null;
  const missing = [
    !domain && 'DKIM_DOMAIN',
    !selector && 'DKIM_SELECTOR',
    !inline && !file && 'DKIM_PRIVATE_KEY (or DKIM_PRIVATE_KEY_FILE)',
  ];
  const named = missing.filter(Boolean);
  if (named.length > 0) throw new Error(`DKIM signing needs DKIM_DOMAIN, DKIM_SELECTOR and a key: ${named.join(', ')} not set`);
  const name = file ? 'DKIM_PRIVATE_KEY_FILE' : 'DKIM_PRIVATE_KEY';
  let pem: string;
  if (file) {
    try {
      pem = readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`DKIM_PRIVATE_KEY_FILE: cannot read ${file}: ${(err as Error).message}`);
    }
  } else pem = (inline as string).replace(/\\n/g, '\n');
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch (err) {
    throw new Error(`${name}: not a readable PEM private key: ${(err as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'rsa')
    throw new Error(`${name}: an RSA key is needed (rsa-sha256), not ${key.asymmetricKeyType ?? 'this type'}`);
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 1024) throw new Error(`${name}: the RSA key has ${bits} bits; at least 1024 are needed (2048 advised)`);
  return { domainName: (domain as string).toLowerCase(), keySelector: selector as string, privateKey: pem };
}

/** The e-mail channel's settings, or null when SMTP_URL is unset (no e-mail is sent). */
export function emailSenderOptions(config: LmsConfig): EmailSenderOptions | null {
  if (!config.SMTP_URL) return null;
  const dkim = dkimSettings(config);
  return {
    smtpUrl: config.SMTP_URL,
    from: config.MAIL_FROM ?? `LMS <no-reply@${new URL(config.PUBLIC_URL).hostname}>`,
    ...(dkim ? { dkim } : {}),
    connectTimeoutMs: config.SMTP_CONNECT_TIMEOUT_MS,
    socketTimeoutMs: config.SMTP_SOCKET_TIMEOUT_MS,
    maxConnections: config.SMTP_POOL_MAX,
  };
}
