import { createHmac, timingSafeEqual } from 'node:crypto';
import type { LmsConfig } from '../config.js';
import { NOTIFICATION_CHANNELS, NOTIFICATION_KINDS, type NotificationChannel, type NotificationKind, RECEIPT_KINDS } from './contract.js';

// The one-click unsubscribe link (RFC 8058): a token naming a person, a kind and a channel, signed
// with an HMAC so that no one can make one for someone else. It needs no session: the mail client
// posts to it on its own. It does not expire: a link in an old message still works.

export interface UnsubscribeTarget {
  userId: string;
  kind: NotificationKind;
  channel: NotificationChannel;
}

/** The links' key: NOTIFICATION_LINK_SECRET, else derived from GATEWAY_SECRET; null: no links. */
export function linkSecret(config: Pick<LmsConfig, 'NOTIFICATION_LINK_SECRET' | 'GATEWAY_SECRET'>): string | null {
  if (config.NOTIFICATION_LINK_SECRET) return config.NOTIFICATION_LINK_SECRET;
  if (config.GATEWAY_SECRET)
    return createHmac('sha256', config.GATEWAY_SECRET).update('lms notification unsubscribe links').digest('base64url');
  return null;
}

function mac(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

/** The signed token of a target (a receipt has none: it cannot be switched off). */
export function unsubscribeToken(secret: string, target: UnsubscribeTarget): string {
  if (RECEIPT_KINDS.has(target.kind)) throw new Error(`${target.kind} is a receipt: it has no unsubscribe link`);
  const payload = Buffer.from(JSON.stringify([target.userId, target.kind, target.channel])).toString('base64url');
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

/** The unsubscribe URL of a target, under the deployment's PUBLIC_URL. */
export function unsubscribeUrl(publicUrl: string, secret: string, target: UnsubscribeTarget): string {
  const url = new URL('/notifications/unsubscribe', publicUrl);
  url.searchParams.set('token', unsubscribeToken(secret, target));
  return url.toString();
}

/** The target a token names, or null when it was not made with this key (forged, altered, cut) or names a receipt. */
export function verifyUnsubscribeToken(secret: string, token: string): UnsubscribeTarget | null {
  const dot = token.indexOf('.');
  if (dot <= 0 || token.length > 1000) return null;
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = mac(secret, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) return null;
  const [userId, kind, channel] = parsed as unknown[];
  if (typeof userId !== 'string' || typeof kind !== 'string' || typeof channel !== 'string') return null;
  if (!(NOTIFICATION_KINDS as readonly string[]).includes(kind) || RECEIPT_KINDS.has(kind as NotificationKind)) return null;
  if (!(NOTIFICATION_CHANNELS as readonly string[]).includes(channel)) return null;
  return { userId, kind: kind as NotificationKind, channel: channel as NotificationChannel };
}

/**
 * When a message held by quiet hours may go: null when `at` is outside them. Quiet hours are
 * minutes after midnight in the person's time zone; start > end spans midnight (22:00–07:00).
 */
export function quietHoursEnd(at: Date, timeZone: string, startMinute: number | null, endMinute: number | null): Date | null {
  if (startMinute === null || endMinute === null || startMinute === endMinute) return null;
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const hour = Number(parts.find((p) => p.type === 'hour')?.value);
  const minute = Number(parts.find((p) => p.type === 'minute')?.value);
  const now = hour * 60 + minute;
  const inside = startMinute < endMinute ? now >= startMinute && now < endMinute : now >= startMinute || now < endMinute;
  if (!inside) return null;
  const wait = (endMinute - now + 1440) % 1440;
  const startOfMinute = Math.floor(at.getTime() / 60_000) * 60_000;
  return new Date(startOfMinute + wait * 60_000);
}
