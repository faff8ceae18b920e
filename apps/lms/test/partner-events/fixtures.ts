import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { type Db, identities, webhookEndpoints } from '@lms/db';
import { eq, sql } from 'drizzle-orm';
import type { Test } from 'tap';
import type { LmsApp } from '../../src/app.js';
import type { LmsConfig } from '../../src/config.js';
import type { DeliverySettings } from '../../src/domain/partner-events/delivery.js';
import { newWebhookSecret } from '../../src/domain/partner-events/signing.js';
import { buildTestApp } from '../helpers/app.js';
import { registerPartner, localServer } from '../helpers/sso.js';
import type { TestDb } from '@lms/db/testing';
import { asSession, makeCast, makeCourse } from '../learning/enrolment-fixtures.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A partner's receiver on the loopback: records every request; `reply` decides each answer. */
export async function receiver(
  t: Test,
  reply: (n: number, req: IncomingMessage, res: ServerResponse) => void = (_n, _r, res) => res.end('ok'),
) {
  const got: Received[] = [];
  const srv = await localServer(t, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      reply(got.length, req, res);
    });
  });
  return { ...srv, got };
}

/** Fast settings for tests: a schedule in ms, no jitter, a short timeout, loopback allowed. */
export const fastSettings = (overrides: Partial<DeliverySettings> = {}): Partial<DeliverySettings> => ({
  retryScheduleMs: [60, 120, 240],
  jitter: 0,
  timeoutMs: 400,
  leaseMs: 5_000,
  policy: { allowHttp: true, allowPrivate: true },
  ...overrides,
});

/** An endpoint row as `webhook add` stores it (`['all']`: every type, later ones too). */
export async function addEndpointRow(db: Db, partnerId: number, url: string, eventTypes: string[] = ['all']) {
  const secret = newWebhookSecret();
  const [row] = await db.insert(webhookEndpoints).values({ partnerId, url, eventTypes, secret }).returning();
  return row!;
}

export async function giveIdentity(db: Db, userId: string, issuer: string, membershipId: string) {
  await db.insert(identities).values({ issuer, membershipId, userId, origin: 'operator' });
}

export async function endpointRow(db: Db, id: number) {
  return (await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)))[0]!;
}

/** An LMS with two partners (A, B), a cast, an open course with 2 chapters; learner holds A's identity, otherLearner B's. */
export async function eventsWorld(
  t: Test,
  options: {
    settings?: Partial<DeliverySettings>;
    db?: TestDb;
    /** The delivery worker's poll (default 0: no worker, tests call deliverDueEvents). */
    pollMs?: number;
    config?: Partial<LmsConfig>;
    clock?: () => Date;
    allowPrivateAddresses?: boolean;
  } = {},
) {
  const { app, db } = await buildTestApp(t, {
    db: options.db,
    config: {
      WEBHOOK_ALLOW_HTTP: true,
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: options.allowPrivateAddresses ?? true,
      ...options.config,
    },
    deps: {
      partnerEvents: { settings: fastSettings(options.settings), pollMs: options.pollMs ?? 0 },
      ...(options.clock ? { clock: options.clock } : {}),
    },
  });
  const cast = await makeCast(app, db.db);
  const partnerA = await registerPartner(db.db, { issuer: 'a.example.org' });
  const partnerB = await registerPartner(db.db, { issuer: 'b.example.org' });
  await giveIdentity(db.db, cast.learner.id, 'a.example.org', 'A-0001');
  await giveIdentity(db.db, cast.otherLearner.id, 'b.example.org', 'B-0002');
  const course = await makeCourse(db.db, cast.teacher, { enrollmentType: 'open', name: 'Etika Profesi', nilaiKum: 4 });
  const enrol = (courseId: number, cookie: string) =>
    app.inject({ method: 'POST', url: `/api/learning/courses/${courseId}/enrollment`, headers: asSession(cookie) });
  return { app, db, cast, partnerA, partnerB, course, enrol };
}

/** Runs delivery rounds until nothing is pending and due soon, waiting for due times between rounds (at most `rounds`). */
export async function drain(app: LmsApp, db: Db, rounds = 200): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await app.deliverDueEvents();
    const { rows } = await db.execute(
      sql`select min(d.next_attempt_at) as next from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
          where d.status = 'pending' and w.status = 'active'`,
    );
    const next = (rows[0] as { next: string | null }).next;
    if (next === null) return;
    const wait = new Date(next).getTime() - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait + 5));
  }
}
