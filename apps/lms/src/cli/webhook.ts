import { users } from '@lms/db';
import { eq } from 'drizzle-orm';
import { findPurchase } from '../domain/learning/purchases.js';
import { refundPurchase } from '../domain/learning/purchase-decisions.js';
import { replay } from '../domain/partner-events/delivery.js';
import { outboxOnly } from '../domain/partner-events/queue.js';
import { PARTNER_EVENT_TYPES } from '../domain/partner-events/enqueue.js';
import {
  addEndpoint,
  deliveryLog,
  EndpointInputError,
  eventTypesOf,
  listEndpoints,
  rotateSecret,
  setEndpointStatus,
} from '../domain/partner-events/endpoints.js';
import { CliError, type CliContext, type CommandGroup, parse, required, table, UsageError, wholeNumber, wrapped } from './command.js';
import { issuerOf } from './partner.js';
import { withEnqueueOnlyJobs } from './jobs.js';

function policyOf(ctx: CliContext) {
  return { allowHttp: ctx.config.WEBHOOK_ALLOW_HTTP, allowPrivate: ctx.config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES };
}

function endpointId(positionals: string[]): number {
  if (positionals.length !== 1) throw new UsageError('give the endpoint id (see `lms-admin webhook list`)');
  return wholeNumber(positionals[0], 'id', { min: 1 });
}

function dateOf(value: string, name: string): Date {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new UsageError(`--${name} must be an ISO 8601 time, e.g. 2026-01-31T00:00:00Z (got "${value}")`);
  return d;
}

export const webhookCommands: CommandGroup = {
  name: 'webhook',
  summary: "partners' event endpoints (signed webhooks): add, list, rotate, disable, enable, replay, log",
  subcommands: [
    {
      name: 'add',
      summary: 'register an endpoint of a partner; prints its signing secret once',
      usage: 'webhook add --iss <domain> --url <https-url> [--events <type,...>|all]',
      help: [
        'Registers an endpoint that receives the partner events (Standard Webhooks) of the partner',
        'whose members they concern. --events lists the types (comma-separated), of:',
        ...wrapped(`${PARTNER_EVENT_TYPES.join(', ')};`),
        'or all (the default): every type, those added in later versions too.',
        'The URL must be https and resolve to a public address, unless WEBHOOK_ALLOW_HTTP /',
        'WEBHOOK_ALLOW_PRIVATE_ADDRESSES allow otherwise (the demo). The secret (whsec_...) is shown once.',
      ].join('\n'),
      async run(args, ctx) {
        const { values, lists } = parse(args, {
          iss: { type: 'string' },
          url: { type: 'string' },
          events: { type: 'string', multiple: true },
        });
        const issuer = issuerOf(values);
        const url = required(values, 'url');
        try {
          const types = eventTypesOf(lists.events);
          const added = await addEndpoint(ctx.openDb().db, { issuer, url, eventTypes: types }, policyOf(ctx));
          ctx.io.err(`Endpoint ${added.id} added for ${issuer}: ${types.join(', ')}. Its signing secret (shown once):`);
          ctx.io.out(added.secret);
        } catch (err) {
          if (err instanceof EndpointInputError) throw new CliError(err.message);
          throw err;
        }
      },
    },
    {
      name: 'list',
      summary: 'list endpoints with their state and pending deliveries',
      usage: 'webhook list [--iss <domain>]',
      help: 'Lists endpoints: id, partner, state (active, or disabled with why), pending deliveries, URL.',
      async run(args, ctx) {
        const { values } = parse(args, { iss: { type: 'string' } });
        const rows = await listEndpoints(ctx.openDb().db, values.iss === undefined ? undefined : issuerOf(values));
        if (rows.length === 0) return ctx.io.err('No endpoints.');
        for (const line of table([
          ['ID', 'PARTNER', 'STATE', 'PENDING', 'EVENTS', 'URL'],
          ...rows.map((r) => [
            String(r.id),
            r.issuer,
            r.status === 'active'
              ? r.failingSince
                ? `active (failing since ${r.failingSince.toISOString()})`
                : 'active'
              : `disabled: ${r.disabledReason ?? ''}`,
            String(r.pending),
            r.eventTypes.join(','),
            r.url,
          ]),
        ]))
          ctx.io.out(line);
      },
    },
    {
      name: 'rotate',
      summary: 'new signing secret; the old one keeps signing (second signature) for the overlap',
      usage: 'webhook rotate <id> [--overlap-hours <n>]',
      help: 'Replaces the secret; both signatures are sent for --overlap-hours (default 24) so the partner can switch.',
      async run(args, ctx) {
        const { values, positionals } = parse(args, { 'overlap-hours': { type: 'string' } }, true);
        const id = endpointId(positionals);
        const hours = values['overlap-hours'] === undefined ? 24 : wholeNumber(values['overlap-hours'], 'overlap-hours');
        const secret = await rotateSecret(ctx.openDb().db, id, hours * 3_600_000, ctx.now());
        if (!secret) throw new CliError(`no endpoint ${id}`);
        ctx.io.err(`Endpoint ${id}: new secret (shown once); the old one stays valid for ${hours} h:`);
        ctx.io.out(secret);
      },
    },
    {
      name: 'disable',
      summary: 'stop delivering to an endpoint (its deliveries wait)',
      usage: 'webhook disable <id> [--reason <text>]',
      help: [
        'Disables the endpoint. Its pending deliveries, and the events that happen while it is disabled,',
        'wait until it is enabled again (at most WEBHOOK_LOG_RETENTION_DAYS: older ones are dropped).',
      ].join('\n'),
      async run(args, ctx) {
        const { values, positionals } = parse(args, { reason: { type: 'string' } }, true);
        const id = endpointId(positionals);
        // Disabling writes no job (its deliveries' jobs, found it disabled, end without sending).
        if (!(await setEndpointStatus(ctx.openDb().db, outboxOnly, id, false, values.reason ?? 'disabled by an operator', ctx.now())))
          throw new CliError(`no endpoint ${id}`);
        ctx.io.err(`Endpoint ${id} disabled.`);
      },
    },
    {
      name: 'enable',
      summary: 'deliver to a disabled endpoint again',
      usage: 'webhook enable <id>',
      help: 'Enables the endpoint: every delivery waiting for it goes out now, on a fresh retry schedule; use replay for failed ones.',
      async run(args, ctx) {
        const { positionals } = parse(args, {}, true);
        const id = endpointId(positionals);
        const handle = ctx.openDb();
        const found = await withEnqueueOnlyJobs(handle, ctx.config, (receipts) =>
          setEndpointStatus(handle.db, receipts.deliveries, id, true, '', ctx.now()),
        );
        if (!found) throw new CliError(`no endpoint ${id}`);
        ctx.io.err(`Endpoint ${id} enabled.`);
      },
    },
    {
      name: 'replay',
      summary: 'send one event again, or every event of an endpoint since a time',
      usage: 'webhook replay (--event <webhook-id> | <id> --since <iso-time>)',
      help: [
        'Makes the deliveries due now (same webhook-id: receivers deduplicate), also those never made',
        '(an event before the endpoint was added), as long as the event is kept (WEBHOOK_LOG_RETENTION_DAYS).',
        'A disabled endpoint gets them when it is enabled.',
      ].join('\n'),
      async run(args, ctx) {
        const { values, positionals } = parse(args, { event: { type: 'string' }, since: { type: 'string' } }, true);
        const handle = ctx.openDb();
        const db = handle.db;
        const replayed = (target: Parameters<typeof replay>[2]) =>
          withEnqueueOnlyJobs(handle, ctx.config, (receipts) => replay(db, receipts.deliveries, target, ctx.now()));
        let n: number;
        if (values.event !== undefined) {
          if (positionals.length > 0 || values.since !== undefined) throw new UsageError('--event goes alone');
          n = await replayed({ eventId: values.event });
        } else {
          const id = endpointId(positionals);
          n = await replayed({ endpointId: id, since: dateOf(required(values, 'since'), 'since') });
          const [endpoint] = await listEndpoints(db, undefined, id);
          if (endpoint && endpoint.status !== 'active') ctx.io.err(`Endpoint ${id} is disabled: they go out when it is enabled.`);
        }
        ctx.io.out(`${n} deliveries queued again`);
      },
    },
    {
      name: 'log',
      summary: "an endpoint's delivery log (latest attempts first)",
      usage: 'webhook log <id> [--limit <n>]',
      help: 'Each attempt: time, event, result, HTTP status, latency, the first bytes of the answer.',
      async run(args, ctx) {
        const { values, positionals } = parse(args, { limit: { type: 'string' } }, true);
        const id = endpointId(positionals);
        const limit = values.limit === undefined ? 50 : wholeNumber(values.limit, 'limit', { min: 1 });
        const rows = await deliveryLog(ctx.openDb().db, id, Math.min(limit, 1000));
        for (const line of table([
          ['TIME', 'EVENT', 'TYPE', 'RESULT', 'STATUS', 'MS', 'ANSWER'],
          ...rows.map((r) => [
            r.attemptedAt.toISOString(),
            r.eventId,
            r.type,
            r.result,
            r.statusCode === null ? '-' : String(r.statusCode),
            String(r.latencyMs),
            (r.excerpt ?? '').replace(/\s+/g, ' ').slice(0, 80),
          ]),
        ]))
          ctx.io.out(line);
      },
    },
  ],
};

export const purchaseCommands: CommandGroup = {
  name: 'purchase',
  summary: 'purchases: refund',
  subcommands: [
    {
      name: 'refund',
      summary: 'record that a paid purchase was refunded (who, when, why)',
      usage: 'purchase refund <id> --by <admin-email> --reason <text> [--keep-certificate <why>]',
      help:
        'Records the refund by the admin --by (who may confirm it). It ends what was bought (the enrolment in its course, ' +
        "a bundle's two) and revokes the certificates earned through it with the reason, unless --keep-certificate says " +
        "why they stay. The buyer's partners get purchase.refunded (and certificate.revoked).",
      async run(args, ctx) {
        const { values, positionals } = parse(
          args,
          { by: { type: 'string' }, reason: { type: 'string' }, 'keep-certificate': { type: 'string' } },
          true,
        );
        if (positionals.length !== 1) throw new UsageError('give the purchase id');
        const id = wholeNumber(positionals[0], 'id', { min: 1 });
        const reason = required(values, 'reason').trim();
        const badText = (text: string) => text === '' || text.length > 500 || text.includes('\0');
        if (badText(reason)) throw new UsageError('--reason: 1 to 500 characters, no NUL');
        const kept = values['keep-certificate']?.trim();
        if (kept !== undefined && badText(kept)) throw new UsageError('--keep-certificate: 1 to 500 characters, no NUL');
        const handle = ctx.openDb();
        const db = handle.db;
        const [admin] = await db
          .select({ id: users.id, role: users.role })
          .from(users)
          .where(eq(users.email, required(values, 'by').toLowerCase()));
        if (!admin) throw new CliError(`no user ${values.by}`);
        if (!(await findPurchase(db, id))) throw new CliError(`no purchase ${id}`);
        try {
          // The refund's receipt is sent by the instances' workers: its job is written here, with the refund.
          const done = await withEnqueueOnlyJobs(handle, ctx.config, (receipts) =>
            refundPurchase(db, receipts, { userId: admin.id, role: admin.role }, id, reason, ctx.now(), {
              keepCertificateReason: kept ?? null,
            }),
          );
          ctx.io.err(`Purchase ${id} is ${done.purchase.status}.`);
          ctx.io.err(`Enrolment ended in course(s): ${done.unenrolledCourseIds.join(', ') || 'none'}.`);
          ctx.io.err(
            done.certificateKeptReason === null
              ? `Certificate(s) revoked: ${done.revokedCertificates.map((c) => c.code).join(', ') || 'none'}.`
              : `Certificates kept: ${done.certificateKeptReason}`,
          );
        } catch (err) {
          throw new CliError((err as Error).message);
        }
      },
    },
  ],
};
