import { enrollments, evaluationResponses, purchases } from '@lms/db';
import { createTestDb } from '@lms/db/testing';
import t from 'tap';
import {
  digestKindsFor,
  isoWeek,
  previousIsoWeek,
  REMINDER_DEFAULTS,
  type ReminderSettings,
  scanAdminDigest,
  scanTeacherDigest,
} from '../../src/notifications/reminders/index.js';
import { makeCourse } from '../helpers/catalog-fixtures.js';
import { testDatabaseUrl } from '../helpers/database.js';
import { makeInstitution, makeUser } from '../helpers/fixtures.js';
import { recorder } from './recorder.js';

// The digests: an admin's day (transfers waiting, stuck ones) and a teacher's ISO week (learners
// enrolled, evaluation comments), in WIB; nothing when there is nothing; paged two at a time.

const testDb = await createTestDb(testDatabaseUrl);
t.teardown(() => testDb.destroy());
const db = testDb.db;
const H = 3_600_000;
const settings: ReminderSettings = { ...REMINDER_DEFAULTS, publicUrl: 'https://lms.example.ac.id', timeZone: 'Asia/Jakarta', batchSize: 2 };

// Three institutions: one with an admin and two transfers waiting (one stuck), one with nothing
// waiting, one with a transfer but no admin (its digest goes to the super_admins).
const busy = await makeInstitution(db, 'Universitas Ramai');
const quiet = await makeInstitution(db, 'Universitas Sepi');
const orphan = await makeInstitution(db, 'Akademi Tanpa Admin');
const admin = await makeUser(db, { role: 'admin', institutionId: busy });
const admin2 = await makeUser(db, { role: 'admin', institutionId: busy });
await makeUser(db, { role: 'admin', institutionId: busy, isActive: false });
await makeUser(db, { role: 'admin', institutionId: quiet });
const root = await makeUser(db, { role: 'super_admin' });
const teacherOf = async (institutionId: number) => makeUser(db, { role: 'teacher', institutionId });
const busyTeacher = await teacherOf(busy);
const busyCourse = await makeCourse(db, { teacherId: busyTeacher.id, institutionId: busy, name: 'Statistika' });
const orphanTeacher = await teacherOf(orphan);
const orphanCourse = await makeCourse(db, { teacherId: orphanTeacher.id, institutionId: orphan, name: 'Akuntansi' });

// 00:30 WIB on 28 November (27 November in UTC).
const now = new Date('2026-11-27T17:30:00Z');
const buyer = await makeUser(db, { name: 'Budi' });
const buyer2 = await makeUser(db, { name: 'Sari' });
const pending = (userId: string, courseId: number, reference: string, createdAgoH: number, windowH = 72) =>
  db.insert(purchases).values({
    userId,
    courseId,
    amount: '350000.00',
    status: 'pending',
    reference,
    createdAt: new Date(now.getTime() - createdAgoH * H),
    expiresAt: new Date(now.getTime() + (windowH - createdAgoH) * H),
  });

t.test('admin digest: nothing waiting, nothing sent', async (t) => {
  const r = recorder();
  const report = await scanAdminDigest(db, now, r.notify, settings);
  t.same(r.requests, []);
  t.same(report, { requested: {}, created: 0 });
});

t.test('admin digest: each admin of the institution, the day in WIB, stuck ones counted; no admin: the super_admin', async (t) => {
  await pending(buyer.id, busyCourse.id, 'INV-STUCK', 60); // 60 of 72 hours gone: stuck
  await pending(buyer2.id, busyCourse.id, 'INV-FRESH', 1);
  await pending(buyer.id, orphanCourse.id, 'INV-ORPHAN', 2);
  // Closed or past its expiry: not waiting.
  await db.insert(purchases).values({ userId: buyer2.id, courseId: orphanCourse.id, amount: '1', status: 'rejected', reference: 'INV-NO' });
  await pending(buyer2.id, orphanCourse.id, 'INV-OVER', 80);
  const r = recorder();
  await scanAdminDigest(db, now, r.notify, settings);
  t.same(
    r.keysOf(),
    [
      `digest.admin:institution:${busy}:user:${admin.id}:2026-11-28`,
      `digest.admin:institution:${busy}:user:${admin2.id}:2026-11-28`,
      `digest.admin:institution:${orphan}:user:${root.id}:2026-11-28`,
    ].sort(),
  );
  const mine = r.of('digest.admin').find((x) => x.userId === admin.id)!;
  t.equal(mine.institutionId, busy);
  t.same(mine.data, {
    institutionName: 'Universitas Ramai',
    pendingTransfers: 2,
    stuckPayments: 1,
    lines: ['INV-STUCK · Rp 350.000 · Budi', 'INV-FRESH · Rp 350.000 · Sari'],
    transfersUrl: 'https://lms.example.ac.id/dashboard/transfers',
  });
  t.same(r.of('digest.admin').find((x) => x.userId === root.id)!.data.lines, ['INV-ORPHAN · Rp 350.000 · Budi']);
  // 23:30 WIB the evening before is another day.
  const before = recorder();
  await scanAdminDigest(db, new Date('2026-11-27T16:30:00Z'), before.notify, settings);
  t.equal(before.keysOf().length, 3);
  t.ok(before.keysOf().every((k) => k.endsWith(':2026-11-27')));
  const again = recorder();
  await scanAdminDigest(db, new Date(now.getTime() + 6 * H), again.notify, settings);
  t.same(again.keysOf(), r.keysOf(), 'later the same day: the same keys');
});

t.test('teacher digest: the last whole ISO week in WIB; nothing new, nothing sent', async (t) => {
  const monday = new Date('2026-11-30T02:00:00Z'); // 09:00 WIB, Monday 30 November: reports W48
  const r0 = recorder();
  await scanTeacherDigest(db, monday, r0.notify, settings);
  t.same(r0.requests, [], 'no learner, no comment: nothing');

  const ani = await makeUser(db, { name: 'Ani' });
  const late = await makeUser(db, { name: 'Telat' });
  await db.insert(enrollments).values([
    { userId: ani.id, courseId: busyCourse.id, enrolledAt: new Date('2026-11-29T16:59:59Z') }, // Sunday 23:59:59 WIB
    { userId: late.id, courseId: busyCourse.id, enrolledAt: new Date('2026-11-29T17:00:00Z') }, // Monday 00:00 WIB: W49
  ]);
  await db.insert(evaluationResponses).values([
    { courseId: busyCourse.id, answers: { material: 5 }, comment: '  Materinya\n sangat jelas  ', submittedOn: '2026-11-25' },
    { courseId: busyCourse.id, answers: { material: 4 }, comment: '', submittedOn: '2026-11-25' },
    { courseId: busyCourse.id, answers: { material: 3 }, comment: 'Minggu lalu', submittedOn: '2026-11-15' },
  ]);
  // Other teachers, to page through: their courses have nothing new.
  for (let i = 0; i < 4; i++) {
    const other = await teacherOf(quiet);
    await makeCourse(db, { teacherId: other.id, institutionId: quiet });
  }
  const r = recorder();
  const report = await scanTeacherDigest(db, monday, r.notify, settings);
  t.same(r.keysOf(), [`digest.teacher:user:${busyTeacher.id}:2026-W48`]);
  const digest = r.of('digest.teacher')[0]!;
  t.equal(digest.institutionId, busy);
  t.same(digest.data, {
    newLearners: 1,
    evaluationComments: 1,
    lines: ['Statistika · “Materinya sangat jelas”', 'Statistika · Ani'],
    studioUrl: 'https://lms.example.ac.id/dashboard',
  });
  t.equal(report.created, 1);
  const sunday = recorder();
  await scanTeacherDigest(db, new Date('2026-12-06T16:00:00Z'), sunday.notify, settings);
  t.same(sunday.keysOf(), r.keysOf(), 'Sunday 23:00 WIB of the next week: the same week, the same key');
});

t.test('the settings page offers a digest to everyone its scan picked here, and to no one else', async (t) => {
  const picked = recorder();
  await scanAdminDigest(db, now, picked.notify, settings);
  await scanTeacherDigest(db, new Date('2026-11-30T02:00:00Z'), picked.notify, settings);
  t.same(new Set(picked.requests.map((r) => r.kind)), new Set(['digest.admin', 'digest.teacher']), 'both scans picked someone');
  for (const r of picked.requests) t.ok((await digestKindsFor(db, r.userId)).has(r.kind), `${r.kind} to ${r.userId}: offered`);
  t.same([...(await digestKindsFor(db, admin.id))], ['digest.admin'], 'an admin');
  t.same([...(await digestKindsFor(db, root.id))], ['digest.admin'], 'a super_admin');
  t.same([...(await digestKindsFor(db, busyTeacher.id))], ['digest.teacher'], "a course's owner");
  t.same([...(await digestKindsFor(db, (await teacherOf(busy)).id))], [], 'a teacher of no course');
  t.same([...(await digestKindsFor(db, buyer.id))], [], 'a buyer');
});

t.test('ISO weeks in the zone', async (t) => {
  t.equal(isoWeek(2026, 11, 28), '2026-W48');
  t.equal(isoWeek(2027, 1, 1), '2026-W53', '2026 has 53 weeks (it starts on a Thursday)');
  t.equal(isoWeek(2021, 1, 3), '2020-W53');
  t.equal(isoWeek(2024, 12, 30), '2025-W01');
  // Monday 00:30 WIB (Sunday 17:30 UTC): the week just ended is W48.
  const w = previousIsoWeek(new Date('2026-11-29T17:30:00Z'), 'Asia/Jakarta');
  t.same(
    { label: w.label, from: w.from.toISOString(), to: w.to.toISOString(), firstDay: w.firstDay, lastDay: w.lastDay },
    { label: '2026-W48', from: '2026-11-22T17:00:00.000Z', to: '2026-11-29T17:00:00.000Z', firstDay: '2026-11-23', lastDay: '2026-11-29' },
  );
  t.equal(previousIsoWeek(new Date('2026-11-29T16:30:00Z'), 'Asia/Jakarta').label, '2026-W47', 'Sunday 23:30 WIB: W48 is not over');
  t.equal(previousIsoWeek(new Date('2026-12-06T16:59:59Z'), 'Asia/Jakarta').label, '2026-W48', 'any day of the next week');
});
