import { creditTargets, identities, partners } from '@lms/db';
import { createTestDb } from '@lms/db/testing';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { memberCredits } from '../../src/domain/learning/credits.js';
import { REMINDER_DEFAULTS, type ReminderSettings, scanReminders } from '../../src/notifications/reminders/index.js';
import { earnCertificate, makeCourse } from '../helpers/catalog-fixtures.js';
import { testDatabaseUrl } from '../helpers/database.js';
import { makeInstitution, makeUser } from '../helpers/fixtures.js';
import { registerPartner } from '../helpers/sso.js';
import { recorder } from './recorder.js';

// The credit reminder: from 00:00 WIB on 1 November (CREDIT_REMINDER_FROM), a member below a
// partner's yearly target is told what the credit record counts (the same figure as
// memberCredits), once per year and target. 23:30 WIB on 31 October is still too early.

const testDb = await createTestDb(testDatabaseUrl);
t.teardown(() => testDb.destroy());
const db = testDb.db;
const ZONE = 'Asia/Jakarta';
const settings: ReminderSettings = { ...REMINDER_DEFAULTS, publicUrl: 'https://lms.example.ac.id', timeZone: ZONE, batchSize: 2 };

const octoberLate = new Date('2026-10-31T16:30:00Z'); // 23:30 WIB, 31 October
const novemberFirst = new Date('2026-10-31T17:00:00Z'); // 00:00 WIB, 1 November
const dayAfter = new Date('2026-11-01T17:00:00Z'); // 00:00 WIB, 2 November: past the 24-hour catch-up

const institutionId = await makeInstitution(db, 'Ikatan Apoteker');
const teacher = await makeUser(db, { role: 'teacher', institutionId });
const skp = await makeCourse(db, { teacherId: teacher.id, institutionId, name: 'Farmakologi', nilaiKum: 12, creditScheme: 'SKP' });

const partnerId = await registerPartner(db, { issuer: 'iai.example.or.id' });
await db.update(partners).set({ name: 'Ikatan Apoteker Indonesia' }).where(eq(partners.id, partnerId));
const [yearly] = await db
  .insert(creditTargets)
  .values({ partnerId, scheme: 'SKP', period: 'calendar_year', years: 1, amount: 30 })
  .returning();
// A rolling target has no year end: never reminded of.
await db.insert(creditTargets).values({ partnerId, scheme: 'SKP', period: 'rolling', years: 3, amount: 120 });
const asleep = await registerPartner(db, { issuer: 'asleep.example.org', isActive: false });
await db.insert(creditTargets).values({ partnerId: asleep, scheme: 'SKP', period: 'calendar_year', years: 1, amount: 50 });

let n = 0;
const member = async (earnedAt: string[], issuer = 'iai.example.or.id') => {
  const k = ++n;
  const u = await makeUser(db, { name: `Anggota ${k}` });
  await db.insert(identities).values({ issuer, membershipId: `M-${k}`, userId: u.id, origin: 'sso' });
  // Each certificate of the course earns 12 SKP; a member holds one certificate per course.
  for (const [i, when] of earnedAt.entries()) {
    const c = i === 0 ? skp : await makeCourse(db, { teacherId: teacher.id, institutionId, nilaiKum: 12, creditScheme: 'SKP' });
    await earnCertificate(db, u.id, c, when);
  }
  return u;
};
// 12 this year (00:30 WIB on 1 January 2026 = 2025 in UTC) and 12 in 2025: 12 of 30.
const below = await member(['2025-12-31T17:30:00Z', '2025-12-31T16:30:00Z']);
const met = await member(['2026-02-01T00:00:00Z', '2026-03-01T00:00:00Z', '2026-04-01T00:00:00Z']);
const nothing = await member([]);
const others = await Promise.all([member([]), member([]), member([])]);
const sleeper = await member([], 'asleep.example.org');

t.test('23:30 WIB on 31 October: not yet', async (t) => {
  const r = recorder();
  await scanReminders(db, octoberLate, r.notify, settings);
  t.same(r.keysOf('credits.progress'), []);
});

t.test('00:00 WIB on 1 November: every member below the yearly target, once per year and target', async (t) => {
  const r = recorder();
  await scanReminders(db, novemberFirst, r.notify, settings);
  const key = (userId: string) => `credits.progress:credit-target:${yearly!.id}:user:${userId}:2026`;
  t.same(
    r.keysOf('credits.progress'),
    [below, nothing, ...others].map((u) => key(u.id)).sort(),
    'not the member who met it, not the rolling target, not an inactive partner',
  );
  t.notOk(r.keysOf().some((k) => k.includes(sleeper.id)));
  const told = r.of('credits.progress').find((x) => x.userId === below.id)!;
  const record = await memberCredits(db, below.id, novemberFirst, ZONE);
  const shown = record.targets.find((x) => x.period === 'calendar_year')!;
  t.same(told.data, {
    year: 2026,
    earned: shown.earned,
    target: 30,
    unit: 'SKP',
    partnerName: 'Ikatan Apoteker Indonesia',
    creditsUrl: 'https://lms.example.ac.id/learn/credits',
  });
  t.equal(told.data.earned, 12, 'the credit record counts 12 this year');
  t.equal(told.institutionId, null, "a member's own institution (none)");
  t.notOk(r.keysOf().includes(key(met.id)));

  const again = recorder();
  await scanReminders(db, new Date(novemberFirst.getTime() + 3_600_000), again.notify, settings);
  t.same(again.keysOf('credits.progress'), r.keysOf('credits.progress'), 'an hour later: the same keys');
});

t.test('a configured day in another zone, and past the catch-up window', async (t) => {
  const r = recorder();
  await scanReminders(db, dayAfter, r.notify, settings);
  t.same(r.keysOf('credits.progress'), [], 'a day after 1 November: no longer found');
  await scanReminders(db, new Date('2026-12-01T00:00:00Z'), r.notify, { ...settings, creditReminderFrom: '12-01', timeZone: 'UTC' });
  t.equal(r.keysOf('credits.progress').length, 5, '00:00 UTC on 1 December with CREDIT_REMINDER_FROM=12-01 in UTC');
});
