import { bundles, chapterCompletions, chapterTime, enrollments, purchases, users } from '@lms/db';
import { createTestDb } from '@lms/db/testing';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { REMINDER_DEFAULTS, type ReminderSettings, scanReminders } from '../../src/notifications/reminders/index.js';
import { makeCategory, makeCourse } from '../helpers/catalog-fixtures.js';
import { testDatabaseUrl } from '../helpers/database.js';
import { makeInstitution, makeUser } from '../helpers/fixtures.js';
import { recorder } from './recorder.js';

// The hourly scan against rows seeded at chosen times: each reminder due exactly at its edge and
// not a second before, finished learners, closed purchases and inactive accounts left out, the
// same keys from a second scan, and every candidate found when there are more than a batch (the
// batch is 2 here, so each scan pages).

const testDb = await createTestDb(testDatabaseUrl);
t.teardown(() => testDb.destroy());
const db = testDb.db;

const N = new Date('2026-11-20T03:00:00Z'); // 10:00 WIB, a Friday
const at = (ms: number) => new Date(N.getTime() + ms);
const H = 3_600_000;
const D = 24 * H;
const settings: ReminderSettings = {
  ...REMINDER_DEFAULTS,
  publicUrl: 'https://lms.example.ac.id/',
  timeZone: 'Asia/Jakarta',
  batchSize: 2,
};

const institutionId = await makeInstitution(db, 'Universitas Contoh');
const teacher = await makeUser(db, { role: 'teacher', institutionId });
const course = (fields: Parameters<typeof makeCourse>[1]) =>
  makeCourse(db, { teacherId: teacher.id, institutionId, ...fields }, { chapters: [2] });
const enrol = async (userId: string, courseId: number, enrolledAt = at(-1 * D)) =>
  (await db.insert(enrollments).values({ userId, courseId, enrolledAt }).returning())[0]!;
const learner = (name: string, isActive = true) => makeUser(db, { name, isActive });

// Course endings: exactly 7 days away, 1 s more, 6 d 23 h, 23 h.
const at7d = await course({ name: 'Audit Dasar', endDate: at(7 * D) });
const past7d = await course({ name: 'Audit Lanjut', endDate: at(7 * D + 1000) });
const in6d23h = await course({ name: 'Etika', endDate: at(6 * D + 23 * H) });
const in23h = await course({ name: 'Pajak', endDate: at(23 * H) });
const ada = await learner('Ada');
const finished = await learner('Selesai');
const gone = await learner('Nonaktif', false);
const adaAt7d = await enrol(ada.id, at7d.id);
await enrol(finished.id, at7d.id);
for (const chapter of at7d.chapters)
  await db.insert(chapterCompletions).values({ userId: finished.id, chapterId: chapter.id, courseId: at7d.id });
await db.insert(chapterCompletions).values({ userId: ada.id, chapterId: at7d.chapters[0]!.id, courseId: at7d.id });
await enrol(gone.id, at7d.id);
await enrol(ada.id, past7d.id);
const ada6d23h = await enrol(ada.id, in6d23h.id);
const ada23h = await enrol(ada.id, in23h.id);
// Five more learners of one ending course: more than two batches.
const crowd = await Promise.all(['B1', 'B2', 'B3', 'B4', 'B5'].map((n) => learner(n)));
const crowdEnrolments: { id: number }[] = [];
for (const p of crowd) crowdEnrolments.push(await enrol(p.id, in6d23h.id));

// Inactivity (14 days), in a running course with no end.
const running = await course({ name: 'Kelas Berjalan' });
const chapter = running.chapters[0]!;
const exact = await learner('Tepat 14 hari');
const exactEnrolment = await enrol(exact.id, running.id, at(-14 * D));
const early = await learner('Kurang 1 detik');
await enrol(early.id, running.id, at(-14 * D + 1000));
const completedThen = await learner('Bab 14 hari lalu');
const completedEnrolment = await enrol(completedThen.id, running.id, at(-40 * D));
await db
  .insert(chapterCompletions)
  .values({ userId: completedThen.id, chapterId: chapter.id, courseId: running.id, completedAt: at(-14 * D - H) });
const reading = await learner('Masih membaca');
await enrol(reading.id, running.id, at(-40 * D));
await db
  .insert(chapterTime)
  .values({ userId: reading.id, chapterId: chapter.id, courseId: running.id, activeSeconds: 60, lastBeatAt: at(-2 * D) });
const longGone = await learner('Lama pergi');
await enrol(longGone.id, running.id, at(-16 * D));
const ended = await course({ name: 'Sudah Usai', startDate: at(-60 * D), endDate: at(-H) });
await enrol(exact.id, ended.id, at(-14 * D));

// Purchases waiting for a transfer.
const buyer = await learner('Pembeli');
const shop = await course({ name: 'Kursus Berbayar' });
const other = await course({ name: 'Kursus Kedua' });
const category = await makeCategory(db);
const [bundle] = await db
  .insert(bundles)
  .values({ name: 'Paket Hemat', categoryId: category.id, courseOneId: shop.id, courseTwoId: other.id })
  .returning();
const purchase = async (fields: Partial<typeof purchases.$inferInsert> & { expiresAt: Date }) =>
  (
    await db
      .insert(purchases)
      .values({ userId: buyer.id, courseId: shop.id, amount: '350000.00', status: 'pending', createdAt: at(-48 * H), ...fields })
      .returning()
  )[0]!;
const due24h = await purchase({ reference: 'INV-DUE24', expiresAt: at(24 * H) });
await purchase({ reference: 'INV-LATE', courseId: other.id, expiresAt: at(24 * H + 1000) });
const bundleDue = await purchase({ reference: 'INV-PAKET', courseId: null, bundleId: bundle!.id, expiresAt: at(H) });
await purchase({
  reference: 'INV-CANCEL',
  courseId: null,
  bundleId: bundle!.id,
  status: 'cancelled',
  expiresAt: at(2 * H),
  closedAt: at(-H),
});
await purchase({ reference: 'INV-OVER', userId: ada.id, expiresAt: at(-1000) });
await purchase({ reference: 'INV-SHORT', userId: exact.id, createdAt: at(-H), expiresAt: at(23 * H) });

const scan = async (now = N, s = settings) => {
  const r = recorder();
  const report = await scanReminders(db, now, r.notify, s);
  return { ...r, report };
};

t.test('course endings: due at 7 days exactly and at 6 d 23 h, not at 7 d + 1 s; 1 day at 23 h', async (t) => {
  const { keysOf, of } = await scan();
  t.same(
    keysOf('course.ending'),
    [
      `course.ending:enrollment:${adaAt7d.id}:7d`,
      `course.ending:enrollment:${ada6d23h.id}:7d`,
      `course.ending:enrollment:${ada23h.id}:1d`,
      ...crowdEnrolments.map((e) => `course.ending:enrollment:${e.id}:7d`),
    ].sort(),
    'the finished learner, the inactive account and the course 1 s further are left out',
  );
  const first = of('course.ending').find((r) => r.subject === `enrollment:${adaAt7d.id}`)!;
  t.same(first.data, {
    courseTitle: 'Audit Dasar',
    courseUrl: `https://lms.example.ac.id/dashboard/courses/${at7d.id}`,
    endsAt: at(7 * D).toISOString(),
    daysLeft: 7,
    progressPercent: 50,
  });
  t.equal(first.userId, ada.id);
  t.equal(first.institutionId, institutionId);
  t.equal(of('course.ending').find((r) => r.period === '1d')!.data.daysLeft, 1);
  // An hour before the 7-day edge, that enrolment is not due yet.
  t.notOk((await scan(at(-H))).keysOf('course.ending').includes(`course.ending:enrollment:${adaAt7d.id}:7d`));
});

t.test('inactivity: due at 14 days exactly, counted from the last activity; once per enrolment', async (t) => {
  const { keysOf, of } = await scan();
  t.same(
    keysOf('course.inactive'),
    [`course.inactive:enrollment:${exactEnrolment.id}:`, `course.inactive:enrollment:${completedEnrolment.id}:`].sort(),
    'not 1 s early, not a learner reading two days ago, not one whose edge passed before the catch-up window, not in an ended course',
  );
  const nudge = of('course.inactive').find((r) => r.userId === exact.id)!;
  t.same(nudge.data, {
    courseTitle: 'Kelas Berjalan',
    courseUrl: `https://lms.example.ac.id/dashboard/courses/${running.id}`,
    daysInactive: 14,
  });
  t.equal(nudge.period, '');
  t.equal(of('course.inactive').find((r) => r.userId === completedThen.id)!.data.daysInactive, 14);
});

t.test('expiring transfers: within 24 h exactly; not cancelled, not already past, not a 24-hour window', async (t) => {
  const { keysOf, of } = await scan();
  t.same(keysOf('purchase.expiring'), [`purchase.expiring:purchase:${due24h.id}:`, `purchase.expiring:purchase:${bundleDue.id}:`].sort());
  t.same(of('purchase.expiring').find((r) => r.subject === `purchase:${due24h.id}`)!.data, {
    itemTitle: 'Kursus Berbayar',
    amount: 350000,
    reference: 'INV-DUE24',
    payBefore: at(24 * H).toISOString(),
    purchaseUrl: `https://lms.example.ac.id/dashboard/courses/${shop.id}#enrol`,
  });
  const paket = of('purchase.expiring').find((r) => r.subject === `purchase:${bundleDue.id}`)!;
  t.equal(paket.data.itemTitle, 'Paket Hemat');
  t.equal(paket.data.purchaseUrl, 'https://lms.example.ac.id/dashboard');
  t.equal(paket.institutionId, institutionId, "a bundle's institution is its first course's");
});

t.test('a second scan asks for the same keys, and the records see nothing new', async (t) => {
  const r = recorder();
  const first = await scanReminders(db, N, r.notify, settings);
  const once = r.keysOf();
  t.equal(first.created, once.length, 'the first scan: every key new');
  r.clear();
  const second = await scanReminders(db, N, r.notify, settings);
  t.same(r.keysOf(), once, 'a retry, or a second instance: the same keys');
  t.equal(second.created, 0, 'nothing new for the records');
  // An hour later the same reminders are still found (the catch-up window), and exactly the three
  // whose edge that hour crossed are new: the course 7 d + 1 s away, the learner 1 s short of 14
  // days, the transfer expiring 24 h + 1 s after N.
  r.clear();
  const later = await scanReminders(db, at(H), r.notify, settings);
  t.same(
    once.filter((k) => !r.keysOf().includes(k)),
    [`purchase.expiring:purchase:${bundleDue.id}:`],
    'all still found an hour later, but the transfer that expired at that moment',
  );
  t.equal(later.created, 3);
});

t.test('batches: two at a time finds what one large batch finds', async (t) => {
  const small = await scan();
  const large = await scan(N, { ...settings, batchSize: 1000 });
  t.same(small.keysOf(), large.keysOf());
  t.ok(small.keysOf('course.ending').length > 2 * settings.batchSize, 'more candidates than two batches');
  t.same(small.report.requested, large.report.requested);
});

t.test('an account switched off meanwhile gets nothing', async (t) => {
  await db.update(users).set({ isActive: false }).where(eq(users.id, buyer.id));
  t.teardown(() => db.update(users).set({ isActive: true }).where(eq(users.id, buyer.id)));
  t.same((await scan()).keysOf('purchase.expiring'), []);
});
