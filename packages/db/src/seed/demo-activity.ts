/**
 * The demo's activity: enrolments, chapter progress, certificates and purchases (course and
 * bundle, one pending now and then, one refund), computed deterministically from the seeded PRNG
 * and inserted with ON CONFLICT / existence checks so a second run inserts nothing.
 */
import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../client.js';
import { certificates, chapterCompletions, chapters, enrollments, modules, purchases } from '../schema/index.js';
import { DEMO_BUNDLES, DEMO_COURSES, DEMO_STUDENTS, type DemoCourse } from './demo-catalog.js';
import { DAY_MS, known, money } from './demo-util.js';

const COURSE_BY_CODE = new Map(DEMO_COURSES.map((c) => [c.code, c]));

export async function insertActivity(
  tx: Db,
  ctx: {
    now: Date;
    random: () => number;
    userId: Map<string, string>;
    courseId: Map<string, number>;
    bundleId: Map<string, number>;
    count: (t: string, n: number) => void;
  },
) {
  const { now, random } = ctx;
  const ago = (days: number) => new Date(now.getTime() - days * DAY_MS);
  const live = DEMO_COURSES.filter((c) => c.state === 'live');
  const courseIds = [...ctx.courseId.values()];
  const chapterRows = await tx
    .select({ id: chapters.id, courseId: chapters.courseId, moduleOrder: modules.orderIndex, orderIndex: chapters.orderIndex })
    .from(chapters)
    .innerJoin(modules, eq(modules.id, chapters.moduleId))
    .where(inArray(chapters.courseId, courseIds));
  const chaptersOf = new Map<number, number[]>();
  for (const c of chapterRows.sort((a, b) => a.moduleOrder - b.moduleOrder || a.orderIndex - b.orderIndex)) {
    const list = chaptersOf.get(c.courseId) ?? [];
    list.push(c.id);
    chaptersOf.set(c.courseId, list);
  }

  const enrollmentValues: (typeof enrollments.$inferInsert)[] = [];
  const completionValues: (typeof chapterCompletions.$inferInsert)[] = [];
  const certificateValues: (typeof certificates.$inferInsert)[] = [];
  const purchaseValues: (typeof purchases.$inferInsert)[] = [];
  const priceFor = (c: DemoCourse, tier: string) =>
    tier === 'mahasiswa' ? (c.priceMahasiswa ?? c.price) : tier === 'umum' ? (c.priceNonMember ?? c.price) : c.price;

  const enroll = (email: string, tier: string, course: DemoCourse, daysAgo: number, paid: 'course' | 'bundle' | 'none') => {
    const userId = known(ctx.userId, email);
    const courseId = known(ctx.courseId, course.code);
    if (enrollmentValues.some((e) => e.userId === userId && e.courseId === courseId)) return;
    const enrolledAt = ago(daysAgo);
    enrollmentValues.push({ userId, courseId, enrolledAt });
    if (paid === 'course' && course.price > 0) {
      const pending = random() < 0.08;
      purchaseValues.push({
        userId,
        courseId,
        amount: money(priceFor(course, tier)),
        status: pending ? 'pending' : 'paid',
        paidAt: pending ? null : enrolledAt,
        createdAt: enrolledAt,
      });
    }
    // Progress: some not started, most part-way, about a quarter finished (with a certificate).
    const list = chaptersOf.get(courseId) ?? [];
    const roll = random();
    const done = roll < 0.15 ? 0 : roll > 0.75 ? list.length : Math.floor(random() * list.length);
    const span = now.getTime() - enrolledAt.getTime();
    for (let i = 0; i < done; i++) {
      completionValues.push({
        userId,
        chapterId: list[i],
        courseId,
        completedAt: new Date(enrolledAt.getTime() + (span * (i + 1)) / (done + 2)),
      });
    }
    if (done === list.length && done > 0) {
      certificateValues.push({ userId, courseId, issuedAt: new Date(enrolledAt.getTime() + (span * (done + 1)) / (done + 2)) });
    }
  };

  for (const [i, student] of DEMO_STUDENTS.entries()) {
    const howMany = 1 + (i % 5);
    for (let k = 0; k < howMany; k++) {
      const course = live[(i * 7 + k * 11) % live.length];
      enroll(student.email, student.tier, course, 2 + Math.floor(random() * 57), random() < 0.7 ? 'course' : 'none');
    }
  }
  // Bundle buyers: one purchase of the bundle, enrolled in both courses.
  const bundleBuyers = DEMO_STUDENTS.filter((_, i) => i % 6 === 1);
  for (const [i, student] of bundleBuyers.entries()) {
    const bundle = DEMO_BUNDLES[i % 7];
    const [a, b] = bundle.courses.map((code) => known(COURSE_BY_CODE, code));
    const daysAgo = 3 + Math.floor(random() * 55);
    const userId = known(ctx.userId, student.email);
    const amount = student.tier === 'umum' ? (bundle.priceNonMember ?? bundle.price) : bundle.price;
    purchaseValues.push({
      userId,
      bundleId: known(ctx.bundleId, bundle.name),
      amount: money(amount ?? a.price + b.price),
      status: 'paid',
      paidAt: ago(daysAgo),
      createdAt: ago(daysAgo),
    });
    enroll(student.email, student.tier, a, daysAgo, 'bundle');
    enroll(student.email, student.tier, b, daysAgo, 'bundle');
  }
  // One refund, so metrics have something to leave out.
  const refunded = DEMO_STUDENTS[5];
  purchaseValues.push({
    userId: known(ctx.userId, refunded.email),
    courseId: known(ctx.courseId, 'TI-202'),
    amount: money(450000),
    status: 'refunded',
    paidAt: ago(20),
    createdAt: ago(20),
  });

  const enr = await tx.insert(enrollments).values(enrollmentValues).onConflictDoNothing().returning({ id: enrollments.id });
  ctx.count('enrollments', enr.length);
  const comp = await tx
    .insert(chapterCompletions)
    .values(completionValues)
    .onConflictDoNothing()
    .returning({ u: chapterCompletions.userId });
  ctx.count('chapter_completions', comp.length);
  if (certificateValues.length > 0) {
    const cert = await tx.insert(certificates).values(certificateValues).onConflictDoNothing().returning({ id: certificates.id });
    ctx.count('certificates', cert.length);
  }

  // Purchases have no natural key: insert those whose (user, course, bundle, status) is not there yet.
  const demoUserIds = [...ctx.userId.values()];
  const have = await tx
    .select({ userId: purchases.userId, courseId: purchases.courseId, bundleId: purchases.bundleId, status: purchases.status })
    .from(purchases)
    .where(inArray(purchases.userId, demoUserIds));
  const key = (p: { userId: string; courseId?: number | null; bundleId?: number | null; status?: string | null }) =>
    `${p.userId}|${p.courseId ?? ''}|${p.bundleId ?? ''}|${p.status ?? 'paid'}`;
  const seen = new Set(have.map(key));
  const fresh = purchaseValues.filter((p) => !seen.has(key(p)));
  if (fresh.length > 0) {
    await tx.insert(purchases).values(fresh);
    ctx.count('purchases', fresh.length);
  }
}
