import { idempotencyKeys, usedTokenIds } from '@lms/db';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/clock.js';

// Spent token ids and Idempotency-Key answers are kept only for a while; the housekeeping
// plugin deletes them once their time is over, on a timer, by the injected clock.

const HOUR = 3_600_000;

async function seedRows(app: Awaited<ReturnType<typeof buildTestApp>>['app'], nowMs: number) {
  await app.db.insert(usedTokenIds).values([
    { issuer: 'p.test', jti: 'expired', expiresAt: new Date(nowMs - 1_000) },
    { issuer: 'p.test', jti: 'live', expiresAt: new Date(nowMs + 60_000) },
  ]);
  await app.db.insert(idempotencyKeys).values([
    { issuer: 'p.test', key: 'day-old', requestHash: 'h', statusCode: 201, responseBody: {}, createdAt: new Date(nowMs - 25 * HOUR) },
    // A claim without an answer (left by an earlier version) goes too once its day is over.
    { issuer: 'p.test', key: 'day-old-unanswered', requestHash: 'h', createdAt: new Date(nowMs - 25 * HOUR) },
    { issuer: 'p.test', key: 'recent', requestHash: 'h', statusCode: 201, responseBody: {}, createdAt: new Date(nowMs - 23 * HOUR) },
  ]);
}

const remaining = async (app: Awaited<ReturnType<typeof buildTestApp>>['app']) => ({
  jtis: (await app.db.select({ jti: usedTokenIds.jti }).from(usedTokenIds)).map((r) => r.jti).sort(),
  keys: (await app.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys)).map((r) => r.key).sort(),
});

t.test('rows past their time are deleted, the others kept', async (t) => {
  const time = manualClock();
  const { app } = await buildTestApp(t, { deps: { clock: time.clock, housekeeping: { intervalMs: 3_600_000 } } });
  await seedRows(app, time.ms);
  t.same(await app.purgeExpiredRows(), { usedTokenIds: 1, idempotencyKeys: 2, expiredPurchases: 0 });
  t.same(await remaining(app), { jtis: ['live'], keys: ['recent'] });
  // An hour and a minute later, by the injected clock, the rest is due too.
  time.set(time.ms + HOUR + 60_000);
  t.same(await app.purgeExpiredRows(), { usedTokenIds: 1, idempotencyKeys: 1, expiredPurchases: 0 });
  t.same(await remaining(app), { jtis: [], keys: [] });
});

t.test('the timer runs the purge by itself', async (t) => {
  const time = manualClock();
  const { app } = await buildTestApp(t, { deps: { clock: time.clock, housekeeping: { intervalMs: 20 } } });
  await app.ready();
  await seedRows(app, time.ms);
  let left = await remaining(app);
  for (let i = 0; i < 400 && (left.jtis.length > 1 || left.keys.length > 1); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    left = await remaining(app);
  }
  t.same(left, { jtis: ['live'], keys: ['recent'] }, 'purged without being asked');
});
