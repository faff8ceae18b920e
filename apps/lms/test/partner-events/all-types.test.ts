import { webhookDeliveries, webhookEndpoints } from '@lms/db';
import { asc } from 'drizzle-orm';
import t from 'tap';
import { enqueuePartnerEvent, PARTNER_EVENT_TYPES, type PartnerEventInput } from '../../src/domain/partner-events/enqueue.js';
import { cliFor } from '../helpers/cli.js';
import { eventsWorld } from './fixtures.js';
import { outboxOnly } from '../../src/domain/partner-events/queue.js';

// Issue 40 (low): an endpoint registered for `all` stored the list of types known that day, so it
// missed every type added later (purchase.unconfirmed was added after the first six). `all` is
// now stored as such (migration 0016 turns the old lists into it).

t.test("an endpoint registered for 'all' stores 'all' and hears of types added later", async (t) => {
  const w = await eventsWorld(t);
  const cli = cliFor(w.db);
  const help = await cli('webhook', 'add', '--help');
  t.equal(help.code, 0, help.err);
  for (const type of PARTNER_EVENT_TYPES) t.match(help.out + help.err, type, `the help of webhook add names ${type}`);
  const added = await cli('webhook', 'add', '--iss', 'a.example.org', '--url', 'https://hooks.example.org/all');
  t.equal(added.code, 0, added.err);
  t.match(added.err, /: all\./);
  const some = await cli(
    'webhook',
    'add',
    '--iss',
    'a.example.org',
    '--url',
    'https://hooks.example.org/some',
    '--events',
    'enrollment.created',
  );
  t.equal(some.code, 0, some.err);
  const rows = await w.db.db.select().from(webhookEndpoints).orderBy(asc(webhookEndpoints.id));
  t.same(
    rows.map((r) => r.eventTypes),
    [['all'], ['enrollment.created']],
    "'all' is stored as such, not as today's list",
  );
  t.match((await cli('webhook', 'list')).out, /\sall\s+https:\/\/hooks\.example\.org\/all/);

  // A type a later version adds: the 'all' endpoint gets it, the one that chose its types does not.
  const future = { type: 'member.renewed', userId: w.cast.learner.id, occurredAt: new Date(), data: {} };
  const queued = await enqueuePartnerEvent(w.db.db, outboxOnly, future as unknown as PartnerEventInput);
  t.equal(queued, 1);
  const [d] = await w.db.db.select().from(webhookDeliveries);
  t.equal(d!.endpointId, rows[0]!.id, "queued for the 'all' endpoint only");
  t.equal(
    await enqueuePartnerEvent(w.db.db, outboxOnly, {
      type: 'enrollment.created',
      userId: w.cast.learner.id,
      occurredAt: new Date(),
      data: { enrolledAt: new Date().toISOString() },
    }),
    2,
    'a type both want: both',
  );
});
