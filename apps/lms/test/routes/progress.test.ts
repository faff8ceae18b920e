import { bundles, categories, certificates, chapters, courses, type Db, enrollments, modules, purchases } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { recordChapterCompletion } from '../../src/domain/learning/chapter-completions.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { buildTestApp } from '../helpers/app.js';

const NOW = new Date('2026-06-30T12:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;
const ago = (ms: number) => new Date(NOW.getTime() - ms);
/** now − 30 days: the excluded lower bound of the trailing window. */
const BOUNDARY = ago(30 * DAY);
const justInside = new Date(BOUNDARY.getTime() + 1);

const ZEROS = {
  totalDaftar: 0,
  totalBeli: 0,
  totalSelesai: 0,
  totalSertifikat: 0,
  totalClasses: 0,
  totalCourses: 0,
  totalStudents: 0,
  completionRate: 0,
  buyers30Days: 0,
  revenue30Days: 0,
  totalKum30Days: 0,
  certificatesCount: 0,
  peopleWithBadgeCount: 0,
  revenueByCurrency30Days: [],
};

async function makeCourse(
  db: Db,
  base: { teacherId: string; institutionId: number },
  fields: { name: string; categoryId: number | null; published: boolean; eventCode: string | null; nilaiKum: number | null },
  chaptersPerModule: number[],
) {
  const [course] = await db
    .insert(courses)
    .values({
      ...base,
      name: fields.name,
      categoryId: fields.categoryId,
      isPublished: fields.published,
      eventCode: fields.eventCode,
      nilaiKum: fields.nilaiKum,
    })
    .returning();
  const chapterIds: number[] = [];
  for (const [m, count] of chaptersPerModule.entries()) {
    const [mod] = await db
      .insert(modules)
      .values({ courseId: course!.id, name: `module ${m}`, orderIndex: m })
      .returning();
    for (let i = 0; i < count; i++) {
      const [ch] = await db
        .insert(chapters)
        .values({ moduleId: mod!.id, courseId: course!.id, name: `chapter ${m}.${i}`, orderIndex: i })
        .returning();
      chapterIds.push(ch!.id);
    }
  }
  return { id: course!.id, chapters: chapterIds };
}

t.test('GET /api/lms-progress', async (t) => {
  const { app, db } = await buildTestApp(t, { deps: { clock: () => NOW } });
  const get = (headers: Record<string, string> = {}) => app.inject({ method: 'GET', url: '/api/lms-progress', headers });

  const institutionId = await makeInstitution(db.db);
  const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
  const admin = await makeUser(db.db, { role: 'admin' });
  const superAdmin = await makeUser(db.db, { role: 'super_admin' });
  const [s1, s2, s3, s4] = [
    await makeUser(db.db, { name: 's1' }),
    await makeUser(db.db, { name: 's2' }),
    await makeUser(db.db, { name: 's3' }),
    await makeUser(db.db, { name: 's4' }),
  ];
  const teacherKey = await apiKeyFor(db.db, teacher.id);
  const teacherHeaders = { 'x-api-key': teacherKey };

  await t.test('who may call it', async (t) => {
    const allowed: [string, Record<string, string>][] = [
      ['teacher API key', teacherHeaders],
      ['teacher session', { cookie: await sessionCookieFor(app, teacher.id) }],
      ['admin session', { cookie: await sessionCookieFor(app, admin.id) }],
      ['super_admin session', { cookie: await sessionCookieFor(app, superAdmin.id) }],
    ];
    for (const [who, headers] of allowed) {
      const res = await get(headers);
      t.equal(res.statusCode, 200, `${who}: 200`);
      t.equal(res.json().success, true, `${who}: success`);
    }

    const student = await get({ cookie: await sessionCookieFor(app, s1!.id) });
    t.equal(student.statusCode, 403, 'student session: 403');
    t.same(student.json(), { success: false, error: 'This needs one of the roles: teacher, admin, super_admin' });
    const studentKey = await get({ 'x-api-key': await apiKeyFor(db.db, s2!.id) });
    t.equal(studentKey.statusCode, 403, "a student's API key: 403");

    const denied: [string, Record<string, string>][] = [
      ['no credentials', {}],
      ['unknown well-formed key', { 'x-api-key': `lms_key_${'a'.repeat(43)}` }],
      ['malformed key', { 'x-api-key': 'not-a-key' }],
      ['unknown session', { cookie: `${app.sessionCookieName}=nope` }],
      ['expired session', { cookie: await sessionCookieFor(app, teacher.id, -1) }],
    ];
    for (const [who, headers] of denied) {
      const res = await get(headers);
      t.equal(res.statusCode, 401, `${who}: 401`);
      const body = res.json();
      t.equal(body.success, false, `${who}: error shape`);
      t.type(body.error, 'string');
    }
  });

  await t.test('an empty platform: every metric 0, no categories', async (t) => {
    const res = await get(teacherHeaders);
    t.same(res.json(), { success: true, data: { overall: ZEROS, perCategory: [] } });
  });

  await t.test('hand-worked fixture', async (t) => {
    const [catA] = await db.db.insert(categories).values({ code: 'ENG', name: 'Engineering' }).returning();
    const [catB] = await db.db.insert(categories).values({ code: 'MED', name: 'Medicine' }).returning();
    const [catC] = await db.db.insert(categories).values({ code: 'LAW', name: 'Law' }).returning(); // no courses
    const base = { teacherId: teacher.id, institutionId };
    // c1: A, buyer-visible, KUM 2.5, 3 chapters (2 + 1 in two modules)
    const c1 = await makeCourse(db.db, base, { name: 'c1', categoryId: catA!.id, published: true, eventCode: 'E1', nilaiKum: 2.5 }, [2, 1]);
    // c2: A, unpublished, no KUM, 0 chapters
    const c2 = await makeCourse(db.db, base, { name: 'c2', categoryId: catA!.id, published: false, eventCode: 'E2', nilaiKum: null }, []);
    // c3: B, buyer-visible, KUM 4, 2 chapters
    const c3 = await makeCourse(db.db, base, { name: 'c3', categoryId: catB!.id, published: true, eventCode: 'E3', nilaiKum: 4 }, [2]);
    // c4: B, published but no event code (not buyer-visible), KUM 1.25, 4 chapters
    const c4 = await makeCourse(db.db, base, { name: 'c4', categoryId: catB!.id, published: true, eventCode: null, nilaiKum: 1.25 }, [4]);
    // c5: no category, buyer-visible, KUM 10, 1 chapter
    const c5 = await makeCourse(db.db, base, { name: 'c5', categoryId: null, published: true, eventCode: 'E5', nilaiKum: 10 }, [1]);

    const enroll = (userId: string, courseId: number) => db.db.insert(enrollments).values({ userId, courseId, enrolledAt: ago(60 * DAY) });
    // s1 in three courses of A, B and no category; s2 in two of A; s3 in two of B; s4 in one of B.
    await enroll(s1!.id, c1.id);
    await enroll(s1!.id, c3.id);
    await enroll(s1!.id, c5.id);
    await enroll(s2!.id, c1.id);
    await enroll(s2!.id, c2.id);
    await enroll(s3!.id, c3.id);
    await enroll(s3!.id, c4.id);
    await enroll(s4!.id, c4.id);

    const complete = async (userId: string, chapterId: number, expected: string) =>
      t.equal(await recordChapterCompletion(db.db, userId, chapterId, ago(DAY)), expected);
    // s1: all of c1 (3/3), c1's first chapter again (duplicate), 1/2 of c3, 1/1 of c5,
    // and a chapter of c4, a course s1 is not enrolled in (counts for nothing).
    for (const ch of c1.chapters) await complete(s1!.id, ch, 'recorded');
    await complete(s1!.id, c1.chapters[0]!, 'already-completed');
    await complete(s1!.id, c3.chapters[0]!, 'recorded');
    await complete(s1!.id, c5.chapters[0]!, 'recorded');
    await complete(s1!.id, c4.chapters[0]!, 'recorded');
    // s2: 1/3 of c1; a chapter of c3 (not enrolled there); nothing in c2 (0 chapters).
    await complete(s2!.id, c1.chapters[0]!, 'recorded');
    await complete(s2!.id, c3.chapters[1]!, 'recorded');
    // s3: 2/2 of c3, 1/4 of c4, and a chapter of c1 (not enrolled there).
    await complete(s3!.id, c3.chapters[0]!, 'recorded');
    await complete(s3!.id, c3.chapters[1]!, 'recorded');
    await complete(s3!.id, c4.chapters[0]!, 'recorded');
    await complete(s3!.id, c1.chapters[2]!, 'recorded');
    // s4: 3/4 of c4, one of them twice.
    await complete(s4!.id, c4.chapters[0]!, 'recorded');
    await complete(s4!.id, c4.chapters[1]!, 'recorded');
    await complete(s4!.id, c4.chapters[2]!, 'recorded');
    await complete(s4!.id, c4.chapters[2]!, 'already-completed');

    const [bundle] = await db.db
      .insert(bundles)
      // A bundle of two category-B courses, filed under category A: its purchase counts for A.
      .values({ name: 'B pair', categoryId: catA!.id, courseOneId: c3.id, courseTwoId: c4.id, price: '300000' })
      .returning();
    const buy = (
      userId: string,
      what: { courseId?: number; bundleId?: number },
      amount: string,
      status: 'paid' | 'pending' | 'refunded',
      paidAt: Date | null,
    ) => db.db.insert(purchases).values({ userId, ...what, amount, status, paidAt, createdAt: ago(90 * DAY) });
    await buy(s1!.id, { courseId: c1.id }, '100000.25', 'paid', ago(DAY)); // p1: A, in window
    await buy(s2!.id, { courseId: c1.id }, '150000.50', 'paid', BOUNDARY); // p2: A, exactly now−30d: outside
    await buy(s2!.id, { courseId: c3.id }, '200000', 'paid', justInside); // p3: B, 1 ms inside
    await buy(s3!.id, { courseId: c4.id }, '50000', 'pending', null); // p4: B, pending: never counted
    await buy(s4!.id, { courseId: c4.id }, '75000', 'refunded', ago(2 * DAY)); // p5: B, refunded: never counted
    await buy(s1!.id, { bundleId: bundle!.id }, '300000', 'paid', NOW); // p6: bundle → A, exactly now: inside
    await buy(s3!.id, { courseId: c5.id }, '10000.50', 'paid', ago(10 * DAY)); // p7: no category, in window
    await buy(s4!.id, { courseId: c3.id }, '20000', 'paid', new Date(NOW.getTime() + 1)); // p8: B, after now: outside

    const certify = (userId: string, courseId: number, issuedAt: Date) => db.db.insert(certificates).values({ userId, courseId, issuedAt });
    await certify(s1!.id, c1.id, ago(5 * DAY)); // k1: A, KUM 2.5, in window
    await certify(s3!.id, c3.id, BOUNDARY); // k2: B, KUM 4, exactly now−30d: outside
    await certify(s1!.id, c5.id, justInside); // k3: no category, KUM 10, inside
    await certify(s3!.id, c4.id, ago(40 * DAY)); // k4: B, KUM 1.25, outside
    await certify(s2!.id, c2.id, ago(DAY)); // k5: A, no KUM (adds 0), inside
    await certify(s4!.id, c4.id, NOW); // k6: B, KUM 1.25, exactly now: inside

    const res = await get(teacherHeaders);
    t.equal(res.statusCode, 200);
    const { success, data } = res.json();
    t.equal(success, true);

    // Enrollment progress, by hand:
    //   s1-c1 3/3 = 100, s1-c3 1/2 = 50, s1-c5 1/1 = 100, s2-c1 1/3 = 33.333…, s2-c2 0 chapters = 0,
    //   s3-c3 2/2 = 100, s3-c4 1/4 = 25, s4-c4 3/4 = 75.
    t.same(data.overall, {
      totalDaftar: 8, // 3 (s1) + 2 (s2) + 2 (s3) + 1 (s4)
      totalBeli: 6, // paid: p1 p2 p3 p6 p7 p8
      totalSelesai: 3, // s1-c1, s1-c5, s3-c3
      totalSertifikat: 6, // k1..k6
      totalClasses: 3, // c1 c3 c5
      totalCourses: 5,
      totalStudents: 4, // s1 s2 s3 s4
      completionRate: 60.42, // (100+50+100+33.333…+0+100+25+75)/8 = 483.333…/8 = 60.41666…
      buyers30Days: 3, // p1 s1, p3 s2, p6 s1, p7 s3 → {s1, s2, s3}
      revenue30Days: 610000.75, // 100000.25 + 200000 + 300000 + 10000.50
      revenueByCurrency30Days: [{ currency: 'IDR', amount: 610000.75 }],
      totalKum30Days: 13.75, // k1 2.5 + k3 10 + k5 0 + k6 1.25
      certificatesCount: 6,
      peopleWithBadgeCount: 4, // s1 (k1,k3) s2 (k5) s3 (k2,k4) s4 (k6)
    });
    t.same(data.perCategory, [
      {
        categoryId: catA!.id,
        categoryCode: 'ENG',
        categoryName: 'Engineering',
        totalDaftar: 3, // s1-c1, s2-c1, s2-c2
        totalBeli: 3, // p1, p2, p6 (the bundle)
        totalSelesai: 1, // s1-c1
        totalSertifikat: 2, // k1, k5
        totalClasses: 1, // c1
        totalCourses: 2, // c1, c2
        totalStudents: 2, // s1, s2
        completionRate: 44.44, // (100 + 33.333… + 0)/3 = 44.444…
        buyers30Days: 1, // p1 and p6, both s1
        revenue30Days: 400000.25, // 100000.25 + 300000
        revenueByCurrency30Days: [{ currency: 'IDR', amount: 400000.25 }],
        totalKum30Days: 2.5, // k1 2.5 + k5 0
        certificatesCount: 2,
        peopleWithBadgeCount: 2, // s1, s2
      },
      {
        categoryId: catB!.id,
        categoryCode: 'MED',
        categoryName: 'Medicine',
        totalDaftar: 4, // s1-c3, s3-c3, s3-c4, s4-c4
        totalBeli: 2, // p3, p8 (p4 pending, p5 refunded)
        totalSelesai: 1, // s3-c3
        totalSertifikat: 3, // k2, k4, k6
        totalClasses: 1, // c3 (c4 has no event code)
        totalCourses: 2, // c3, c4
        totalStudents: 3, // s1, s3, s4
        completionRate: 62.5, // (50 + 100 + 25 + 75)/4
        buyers30Days: 1, // p3 s2
        revenue30Days: 200000, // p3
        revenueByCurrency30Days: [{ currency: 'IDR', amount: 200000 }],
        totalKum30Days: 1.25, // k6 only (k2 at the boundary, k4 40 days ago)
        certificatesCount: 3,
        peopleWithBadgeCount: 2, // s3, s4
      },
      { categoryId: catC!.id, categoryCode: 'LAW', categoryName: 'Law', ...ZEROS },
    ]);
    for (const [field, value] of Object.entries(data.overall)) {
      if (field !== 'revenueByCurrency30Days') t.type(value, 'number', `${field} is a JSON number`);
    }

    // Deleting a completed chapter of c1 moves the numbers: s1-c1 becomes 2/2 = 100 (still done),
    // s2-c1 (completed chapter 0, the deleted one) becomes 0/2 = 0.
    await db.db.delete(chapters).where(eq(chapters.id, c1.chapters[0]!));
    const after = (await get(teacherHeaders)).json().data;
    // (100+50+100+0+0+100+25+75)/8 = 450/8 = 56.25
    t.equal(after.overall.completionRate, 56.25);
    t.equal(after.overall.totalSelesai, 3);
    // A: (100 + 0 + 0)/3 = 33.333…
    t.equal(after.perCategory[0].completionRate, 33.33);

    // A chapter added to c3 (2 → 3 chapters) takes s3-c3 out of "complete": s1-c3 1/3, s3-c3 2/3.
    const [c3Module] = await db.db.select().from(modules).where(eq(modules.courseId, c3.id)).limit(1);
    await db.db.insert(chapters).values({ moduleId: c3Module!.id, courseId: c3.id, name: 'new chapter' });
    const withChapter = (await get(teacherHeaders)).json().data;
    // (100 + 33.333… + 100 + 0 + 0 + 66.666… + 25 + 75)/8 = 400/8
    t.equal(withChapter.overall.completionRate, 50);
    t.equal(withChapter.overall.totalSelesai, 2, 's1-c1, s1-c5');
    t.equal(withChapter.perCategory[1].totalSelesai, 0, 'B: none complete any more');

    // c3 moves from B to A: its enrollments, purchases, certificates and people go with it.
    await db.db.update(courses).set({ categoryId: catA!.id }).where(eq(courses.id, c3.id));
    // c5 (no category) is deleted: its enrollment and certificate go (cascade); its paid purchase
    // p7 stays (course set null) and still counts overall.
    await db.db.delete(courses).where(eq(courses.id, c5.id));
    const moved = (await get(teacherHeaders)).json().data;
    // Progress now: s1-c1 100, s1-c3 33.333…, s2-c1 0, s2-c2 0, s3-c3 66.666…, s3-c4 25, s4-c4 75.
    t.same(moved.overall, {
      totalDaftar: 7,
      totalBeli: 6, // p1 p2 p3 p6 p7 (orphan) p8
      totalSelesai: 1, // s1-c1
      totalSertifikat: 5, // k1 k2 k4 k5 k6
      totalClasses: 2, // c1 c3
      totalCourses: 4,
      totalStudents: 4,
      completionRate: 42.86, // 300/7 = 42.857…
      buyers30Days: 3, // s1 (p1, p6), s2 (p3), s3 (p7)
      revenue30Days: 610000.75,
      revenueByCurrency30Days: [{ currency: 'IDR', amount: 610000.75 }],
      totalKum30Days: 3.75, // k1 2.5 + k5 0 + k6 1.25
      certificatesCount: 5,
      peopleWithBadgeCount: 4, // s1 (k1) s2 (k5) s3 (k2, k4) s4 (k6)
    });
    t.same(moved.perCategory.slice(0, 2), [
      {
        categoryId: catA!.id,
        categoryCode: 'ENG',
        categoryName: 'Engineering',
        totalDaftar: 5, // s1-c1, s2-c1, s2-c2, s1-c3, s3-c3
        totalBeli: 5, // p1, p2, p6 (bundle), p3, p8 (c3)
        totalSelesai: 1, // s1-c1
        totalSertifikat: 3, // k1, k5, k2
        totalClasses: 2, // c1, c3
        totalCourses: 3,
        totalStudents: 3, // s1, s2, s3
        completionRate: 40, // (100 + 0 + 0 + 33.333… + 66.666…)/5
        buyers30Days: 2, // s1 (p1, p6), s2 (p3)
        revenue30Days: 600000.25, // 100000.25 + 300000 + 200000
        revenueByCurrency30Days: [{ currency: 'IDR', amount: 600000.25 }],
        totalKum30Days: 2.5, // k1 (k2 at the boundary)
        certificatesCount: 3,
        peopleWithBadgeCount: 3, // s1, s2, s3
      },
      {
        categoryId: catB!.id,
        categoryCode: 'MED',
        categoryName: 'Medicine',
        totalDaftar: 2, // s3-c4, s4-c4
        totalBeli: 0, // p4 pending, p5 refunded
        totalSelesai: 0,
        totalSertifikat: 2, // k4, k6
        totalClasses: 0,
        totalCourses: 1,
        totalStudents: 2, // s3, s4
        completionRate: 50, // (25 + 75)/2
        buyers30Days: 0,
        revenue30Days: 0,
        revenueByCurrency30Days: [],
        totalKum30Days: 1.25, // k6
        certificatesCount: 2,
        peopleWithBadgeCount: 2, // s3, s4
      },
    ]);

    // A purchase through the learning API (issue 17): pending moves nothing; the admin's
    // confirmation makes it paid (now, inside the window) and enrols the buyer, and the metrics
    // move exactly as the rule says, from the state above.
    await db.db.update(courses).set({ price: '125000.50', isPurchasable: true }).where(eq(courses.id, c1.id));
    const s5 = await makeUser(db.db, { name: 's5' });
    const csrf = { 'x-requested-with': 'test' };
    const started = await app.inject({
      method: 'POST',
      url: '/api/learning/purchases',
      headers: { cookie: await sessionCookieFor(app, s5.id), ...csrf },
      payload: { courseId: c1.id },
    });
    t.equal(started.statusCode, 201, 'purchase started');
    t.same((await get(teacherHeaders)).json().data, moved, 'a pending purchase moves no metric');
    const confirmed = await app.inject({
      method: 'POST',
      url: `/api/learning/purchases/${started.json().purchase.id}/confirm`,
      headers: { cookie: await sessionCookieFor(app, superAdmin.id), ...csrf },
    });
    t.equal(confirmed.statusCode, 200, 'confirmed');
    const bought = (await get(teacherHeaders)).json().data;
    t.same(bought.overall, {
      ...moved.overall,
      totalDaftar: 8, // + s5-c1
      totalBeli: 7, // + the confirmed purchase
      totalStudents: 5, // + s5
      completionRate: 37.5, // the same 300 of progress over 8 enrollments (s5-c1 at 0)
      buyers30Days: 4, // + s5 (paid now)
      revenue30Days: 735001.25, // 610000.75 + 125000.50
      revenueByCurrency30Days: [{ currency: 'IDR', amount: 735001.25 }],
    });
    t.same(bought.perCategory[0], {
      ...moved.perCategory[0],
      totalDaftar: 6,
      totalBeli: 6,
      totalStudents: 4,
      completionRate: 33.33, // 200/6
      buyers30Days: 3,
      revenue30Days: 725000.75,
      revenueByCurrency30Days: [{ currency: 'IDR', amount: 725000.75 }],
    });

    // Another currency is never added to the platform's: the trust review saw IDR and USD summed.
    await db.db.insert(purchases).values({ userId: s5.id, courseId: c1.id, amount: '25.50', currency: 'USD', status: 'paid', paidAt: NOW });
    const usd = (await get(teacherHeaders)).json().data;
    t.equal(usd.overall.revenue30Days, 735001.25, 'revenue30Days: the platform currency only');
    t.same(usd.overall.revenueByCurrency30Days, [
      { currency: 'IDR', amount: 735001.25 },
      { currency: 'USD', amount: 25.5 },
    ]);
    t.same(usd.perCategory[0].revenueByCurrency30Days, [
      { currency: 'IDR', amount: 725000.75 },
      { currency: 'USD', amount: 25.5 },
    ]);
    const page = await app.inject({ url: '/dashboard', headers: { cookie: `${await sessionCookieFor(app, superAdmin.id)}; lms_lang=en` } });
    t.match(page.body, /Also paid in other currencies \(not added in\): US\$25\.50/, 'the dashboard says it apart');
    t.same(bought.perCategory.slice(1), moved.perCategory.slice(1), 'other categories unchanged');
  });
});

t.test('the OpenAPI description carries every definition', async (t) => {
  const { app } = await buildTestApp(t);
  const doc = (await app.inject('/docs/json')).json();
  const op = doc.paths['/api/lms-progress']?.get;
  t.ok(op, 'documented');
  for (const field of Object.keys(ZEROS)) t.match(op.description, `\`${field}\``, `${field} defined`);
  t.match(op.description, '(now − 30 days, now]');
  t.ok(op.responses['200'] && op.responses['401'] && op.responses['403'], '200, 401 and 403 documented');
});
