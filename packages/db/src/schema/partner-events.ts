import { relations, sql } from 'drizzle-orm';
import { bigint, bigserial, check, index, integer, jsonb, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { partners } from './partners.js';
import { tstz } from './timestamps.js';

// Partner events (docs/architecture.md, "Partner events"): a transactional outbox. One
// partner_events row per (event, partner) holds the payload as that partner sees it (its
// membershipId and iss); one webhook_deliveries row per (event, endpoint) is what the delivery
// worker claims, retries and closes; webhook_attempts is the delivery log.

/** An HTTPS endpoint a partner receives events at, with its Standard Webhooks secret. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: serial().primaryKey(),
    partnerId: integer()
      .notNull()
      .references(() => partners.id, { onDelete: 'cascade' }),
    url: text().notNull(),
    /**
     * The event types it receives (e.g. enrollment.created), or `{all}`: every type, those added
     * later included (docs/architecture.md, "Events wait for a disabled endpoint").
     */
    eventTypes: text().array().notNull(),
    /** whsec_ + base64 of 32 random bytes. */
    secret: text().notNull(),
    /** The secret before the last rotation, still signed with until previousSecretUntil. */
    previousSecret: text(),
    previousSecretUntil: tstz(),
    /** active, or disabled (by an operator, a 410, or failing for WEBHOOK_DISABLE_AFTER_HOURS). */
    status: text().notNull().default('active'),
    disabledAt: tstz(),
    disabledReason: text(),
    /** Since when every attempt has failed; null after a success. */
    failingSince: tstz(),
    createdAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    index('webhook_endpoints_partner_idx').on(t.partnerId),
    check('webhook_endpoints_status', sql`${t.status} in ('active', 'disabled')`),
  ],
);

/** One event as one partner receives it. `id` is the webhook-id; `seq` orders events for receivers. */
export const partnerEvents = pgTable(
  'partner_events',
  {
    id: text().primaryKey(),
    seq: bigserial({ mode: 'number' }).notNull(),
    partnerId: integer()
      .notNull()
      .references(() => partners.id, { onDelete: 'cascade' }),
    type: text().notNull(),
    /** The user the event is about (no foreign key: the event outlives a purge of the account). */
    userId: text().notNull(),
    /** The `data` of the payload, the partner's member reference included. */
    data: jsonb().notNull(),
    occurredAt: tstz().notNull(),
  },
  (t) => [uniqueIndex('partner_events_seq_key').on(t.seq), index('partner_events_partner_occurred_idx').on(t.partnerId, t.occurredAt)],
);

/**
 * One event to one endpoint: pending until delivered, or failed (given up), or stopped (410). A
 * pending delivery of a disabled endpoint waits (WEBHOOK_LOG_RETENTION_DAYS at most).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    eventId: text()
      .notNull()
      .references(() => partnerEvents.id, { onDelete: 'cascade' }),
    endpointId: integer()
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    status: text().notNull().default('pending'),
    attempts: integer().notNull().default(0),
    nextAttemptAt: tstz().notNull(),
    /** A worker's lease: nobody else sends it before then (a killed worker's lease runs out). */
    lockedUntil: tstz(),
    lastStatusCode: integer(),
    deliveredAt: tstz(),
    createdAt: tstz().notNull(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_event_endpoint_key').on(t.eventId, t.endpointId),
    // The claim reads each active endpoint's due deliveries through it (a disabled endpoint's
    // waiting ones are never scanned).
    index('webhook_deliveries_endpoint_due_idx').on(t.endpointId, t.nextAttemptAt, t.id).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt),
    check('webhook_deliveries_status', sql`${t.status} in ('pending', 'delivered', 'failed', 'stopped')`),
  ],
);

/** The delivery log: each attempt, kept WEBHOOK_LOG_RETENTION_DAYS. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    deliveryId: bigint({ mode: 'number' })
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    endpointId: integer().notNull(),
    attemptedAt: tstz().notNull(),
    /** The HTTP status, or null when no answer came (refused, timeout, blocked address). */
    statusCode: integer(),
    /** delivered, retry, gone, failed, blocked. */
    result: text().notNull(),
    latencyMs: integer().notNull(),
    /** The first bytes of the answer or the error, bounded. */
    excerpt: text(),
  },
  (t) => [index('webhook_attempts_endpoint_idx').on(t.endpointId, t.attemptedAt), index('webhook_attempts_time_idx').on(t.attemptedAt)],
);

/** The LMS's own signing keys (member-check tokens), public halves served at /.well-known/jwks.json. */
export const lmsSigningKeys = pgTable('lms_signing_keys', {
  kid: text().primaryKey(),
  privateJwk: jsonb().notNull(),
  publicJwk: jsonb().notNull(),
  createdAt: tstz().notNull().defaultNow(),
});

export const webhookEndpointsRelations = relations(webhookEndpoints, ({ one, many }) => ({
  partner: one(partners, { fields: [webhookEndpoints.partnerId], references: [partners.id] }),
  deliveries: many(webhookDeliveries),
}));

export const partnerEventsRelations = relations(partnerEvents, ({ one, many }) => ({
  partner: one(partners, { fields: [partnerEvents.partnerId], references: [partners.id] }),
  deliveries: many(webhookDeliveries),
}));

export const webhookDeliveriesRelations = relations(webhookDeliveries, ({ one }) => ({
  event: one(partnerEvents, { fields: [webhookDeliveries.eventId], references: [partnerEvents.id] }),
  endpoint: one(webhookEndpoints, { fields: [webhookDeliveries.endpointId], references: [webhookEndpoints.id] }),
}));
