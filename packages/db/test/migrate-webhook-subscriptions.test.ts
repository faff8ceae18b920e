import { sql } from 'drizzle-orm';
import t from 'tap';
import { migrate } from '../src/migrate.js';
import { createTestDb } from '../src/testing.js';
import { testDatabaseUrl } from './helpers.js';

// Migration 0016 on a database as it was before it (0015), holding partner events: an endpoint
// registered for `all` had stored the types known then, and missed those added later
// (purchase.unconfirmed came after the first six); it now stores `{all}`. An endpoint that chose
// its types keeps them. The claim's index becomes one per endpoint; no delivery is lost.

const FIRST_SIX = [
  'enrollment.created',
  'enrollment.completed',
  'certificate.issued',
  'certificate.revoked',
  'purchase.paid',
  'purchase.refunded',
];

t.test('0016: endpoints registered for all store {all}; chosen lists and deliveries are kept', async (t) => {
  const h = await createTestDb(testDatabaseUrl, { migratedUpTo: '0017_certificate_status_entries_required' });
  t.teardown(() => h.destroy());
  await h.db.execute(sql`insert into partners (id, issuer, name) values (1, 'a.test', 'A')`);
  const endpoints: Array<[number, string[], string]> = [
    [1, FIRST_SIX, 'registered for all before purchase.unconfirmed existed'],
    [2, [...FIRST_SIX, 'purchase.unconfirmed'], 'registered for all since'],
    [3, ['certificate.issued'], 'one chosen type'],
    [4, FIRST_SIX.slice(0, 5), 'five chosen types'],
    [5, ['purchase.unconfirmed', 'purchase.paid'], 'two chosen types'],
  ];
  for (const [id, types] of endpoints) {
    await h.db.execute(sql`insert into webhook_endpoints (id, partner_id, url, event_types, secret, status)
      values (${id}, 1, ${`https://hooks.a.test/${id}`}, ${`{${types.join(',')}}`}::text[], 'whsec_x', ${id === 2 ? 'disabled' : 'active'})`);
  }
  await h.db.execute(sql`insert into partner_events (id, partner_id, type, user_id, data, occurred_at)
    values ('msg_1', 1, 'certificate.issued', 'u1', '{}', now())`);
  await h.db.execute(sql`insert into webhook_deliveries (event_id, endpoint_id, next_attempt_at, created_at, status)
    values ('msg_1', 1, now(), now(), 'pending'), ('msg_1', 2, now(), now(), 'pending'), ('msg_1', 3, now(), now(), 'delivered')`);

  await migrate(h);

  const { rows } = await h.db.execute<{ id: number; event_types: string[] }>(
    sql`select id, event_types from webhook_endpoints order by id`,
  );
  t.same(
    rows.map((r) => [r.id, r.event_types]),
    [
      [1, ['all']],
      [2, ['all']],
      [3, ['certificate.issued']],
      [4, FIRST_SIX.slice(0, 5)],
      [5, ['purchase.unconfirmed', 'purchase.paid']],
    ],
    endpoints.map(([id, , why]) => `${id}: ${why}`).join('; '),
  );
  const deliveries = await h.db.execute<{ endpoint_id: number; status: string }>(
    sql`select endpoint_id, status from webhook_deliveries order by endpoint_id`,
  );
  t.same(
    deliveries.rows,
    [
      { endpoint_id: 1, status: 'pending' },
      { endpoint_id: 2, status: 'pending' },
      { endpoint_id: 3, status: 'delivered' },
    ],
    'every delivery kept as it was',
  );
  const indexes = await h.db.execute<{ indexname: string; indexdef: string }>(
    sql`select indexname, indexdef from pg_indexes where tablename = 'webhook_deliveries' order by indexname`,
  );
  const names = indexes.rows.map((r) => r.indexname);
  t.ok(names.includes('webhook_deliveries_endpoint_due_idx'), 'the per-endpoint claim index exists');
  t.notOk(names.includes('webhook_deliveries_due_idx'), 'the global one is gone');
  t.match(
    indexes.rows.find((r) => r.indexname === 'webhook_deliveries_endpoint_due_idx')?.indexdef,
    /\(endpoint_id, next_attempt_at, id\) WHERE/,
  );
});
