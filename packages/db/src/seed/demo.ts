import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../client.js';
import { insertQuickCourse } from './demo-quick-course.js';
import { generateApiKey } from '../credentials.js';
import {
  courseAccreditations,
  apiKeys,
  bundles,
  categories,
  certificates,
  chapterCompletions,
  chapters,
  courses,
  enrollments,
  identities,
  institutions,
  modules,
  partnerInstitutions,
  partners,
  purchases,
  questions,
  quizzes,
  users,
  type QuestionOption,
} from '../schema/index.js';
import {
  chapterNamesFor,
  DEMO_API_KEY_NAME,
  DEMO_BUNDLES,
  DEMO_CATEGORIES,
  DEMO_COURSES,
  DEMO_INSTITUTION,
  DEMO_PARTNER,
  DEMO_STAFF,
  DEMO_STUDENTS,
  DEMO_TEACHER_EMAIL,
  detailSectionsFor,
  type DemoCourse,
} from './demo-catalog.js';

export { DEMO_PARTNER, DEMO_TEACHER_EMAIL, DEMO_INSTITUTION } from './demo-catalog.js';

export interface SeedDemoOptions {
  /** "Now" for the activity spread over the last 60 days. Default: the current time. */
  now?: Date;
  /** Where the demo partner serves its keys. Default: DEMO_PARTNER.jwksUrl (the demo partner on its default port). */
  demoPartnerJwksUrl?: string | undefined;
}

export interface SeedDemoResult {
  /** The demo teacher's API key in clear, only on the run that created it; null afterwards. */
  apiKey: string | null;
  teacherEmail: string;
  /** Rows this run inserted, per table (0 everywhere on a second run). */
  inserted: Record<string, number>;
}

/**
 * Points the demo partner, if the database has it, at the JWKS URL where it runs now (the one-
 * command start on other ports than the seed's). Returns whether the URL changed.
 */
export async function pointDemoPartnerAt(db: Db, jwksUrl: string): Promise<boolean> {
  const changed = await db
    .update(partners)
    .set({ jwksUrl })
    .where(and(eq(partners.issuer, DEMO_PARTNER.issuer), sql`${partners.jwksUrl} is distinct from ${jwksUrl}`))
    .returning({ id: partners.id });
  return changed.length > 0;
}

const DAY_MS = 86_400_000;
const COURSE_BY_CODE = new Map(DEMO_COURSES.map((c) => [c.code, c]));

/** A row or constant this seed has just written or declared: missing means the seed itself is wrong. */
function known<K, V>(map: ReadonlyMap<K, V>, key: K): V {
  const value = map.get(key);
  if (value === undefined) throw new Error(`demo seed: nothing recorded for ${String(key)}`);
  return value;
}

/**
 * Fills the database with a small, believable demo catalog and activity. Idempotent: every
 * entity is matched on a natural key (e-mail, category code, course code, bundle name, issuer,
 * unique pairs), so a second run inserts nothing. Counters are left to the database triggers.
 */
export async function seedDemo(db: Db, options: SeedDemoOptions = {}): Promise<SeedDemoResult> {
  const now = options.now ?? new Date();
  const inserted: Record<string, number> = {};
  const count = (table: string, n: number) => {
    inserted[table] = (inserted[table] ?? 0) + n;
  };
  const random = mulberry32(20_240_817);

  const apiKey = await db.transaction(async (txn) => {
    const tx = txn as unknown as Db;

    // Institution 1, with the sequence moved past it so later inserts do not collide.
    const inst = await tx
      .insert(institutions)
      .values({ id: DEMO_INSTITUTION.id, name: DEMO_INSTITUTION.name })
      .onConflictDoNothing()
      .returning({ id: institutions.id });
    count('institutions', inst.length);
    await tx.execute(sql`select setval(pg_get_serial_sequence('institutions', 'id'), (select max(id) from institutions))`);

    // People.
    const staffRows = await tx
      .insert(users)
      .values(DEMO_STAFF.map((s) => ({ email: s.email, name: s.name, role: s.role, institutionId: DEMO_INSTITUTION.id })))
      .onConflictDoNothing({ target: users.email })
      .returning({ id: users.id });
    count('users', staffRows.length);
    const studentRows = await tx
      .insert(users)
      .values(
        DEMO_STUDENTS.map((s) => ({
          email: s.email,
          name: s.name,
          role: 'student' as const,
          institutionId: DEMO_INSTITUTION.id,
          tier: s.tier,
          membershipId: s.membershipId,
        })),
      )
      .onConflictDoNothing({ target: users.email })
      .returning({ id: users.id });
    count('users', studentRows.length);
    const people = await tx
      .select({ id: users.id, email: users.email })
      .from(users)
      .where(inArray(users.email, [...DEMO_STAFF.map((s) => s.email), ...DEMO_STUDENTS.map((s) => s.email)]));
    const userId = new Map(people.map((p) => [p.email, p.id]));
    const teacherIds = { 1: known(userId, DEMO_STAFF[0].email), 2: known(userId, DEMO_STAFF[1].email) };

    // Partner, bound to the demo institution, with the SSO identities of its members and the
    // operator's links to the demo staff.
    const partnerRows = await tx
      .insert(partners)
      .values({ ...DEMO_PARTNER, jwksUrl: options.demoPartnerJwksUrl ?? DEMO_PARTNER.jwksUrl })
      .onConflictDoNothing()
      .returning({ id: partners.id });
    count('partners', partnerRows.length);
    const [partner] = await tx.select({ id: partners.id }).from(partners).where(eq(partners.issuer, DEMO_PARTNER.issuer));
    const bound = await tx
      .insert(partnerInstitutions)
      .values({ partnerId: partner.id, institutionId: DEMO_INSTITUTION.id })
      .onConflictDoNothing()
      .returning({ partnerId: partnerInstitutions.partnerId });
    count('partner_institutions', bound.length);
    const identityRows = await tx
      .insert(identities)
      .values([
        ...DEMO_STUDENTS.filter((s) => s.viaPartner).map((s) => ({
          issuer: DEMO_PARTNER.issuer,
          membershipId: s.membershipId,
          userId: known(userId, s.email),
          origin: 'sso' as const,
        })),
        ...DEMO_STAFF.map((s) => ({
          issuer: DEMO_PARTNER.issuer,
          membershipId: s.partnerMembershipId,
          userId: known(userId, s.email),
          origin: 'operator' as const,
        })),
      ])
      .onConflictDoNothing()
      .returning({ userId: identities.userId });
    count('identities', identityRows.length);

    // Categories.
    const catRows = await tx
      .insert(categories)
      .values([...DEMO_CATEGORIES])
      .onConflictDoNothing()
      .returning({ id: categories.id });
    count('categories', catRows.length);
    const cats = await tx
      .select({ id: categories.id, code: categories.code })
      .from(categories)
      .where(
        inArray(
          categories.code,
          DEMO_CATEGORIES.map((c) => c.code),
        ),
      );
    const categoryId = new Map(cats.map((c) => [c.code, c.id]));

    // Courses, each with its modules, chapters, quizzes and questions; skipped when its code exists.
    const existing = await tx
      .select({ id: courses.id, code: courses.courseCode })
      .from(courses)
      .where(
        inArray(
          courses.courseCode,
          DEMO_COURSES.map((c) => c.code),
        ),
      );
    const courseId = new Map(existing.map((c) => [c.code, c.id]));
    for (const [index, course] of DEMO_COURSES.entries()) {
      if (courseId.has(course.code)) continue;
      const id = await insertCourse(tx, course, index, {
        teacherId: teacherIds[course.teacher],
        categoryId: course.category ? (categoryId.get(course.category) ?? null) : null,
        now,
        count,
      });
      courseId.set(course.code, id);
    }

    // The short course the demo member can take end to end (README "Try it").
    for (const [table, n] of Object.entries(
      await insertQuickCourse(tx, {
        teacherId: teacherIds[1],
        institutionId: DEMO_INSTITUTION.id,
        categoryId: categoryId.get('MNJ') ?? null,
        now,
      }),
    ))
      count(table, n);

    // Bundles, matched by name.
    const existingBundles = await tx
      .select({ id: bundles.id, name: bundles.name })
      .from(bundles)
      .where(
        inArray(
          bundles.name,
          DEMO_BUNDLES.map((b) => b.name),
        ),
      );
    const bundleId = new Map(existingBundles.map((b) => [b.name, b.id]));
    const newBundles = DEMO_BUNDLES.filter((b) => !bundleId.has(b.name));
    if (newBundles.length > 0) {
      const rows = await tx
        .insert(bundles)
        .values(
          newBundles.map((b) => ({
            name: b.name,
            description: b.description,
            categoryId: known(categoryId, b.category),
            courseOneId: known(courseId, b.courses[0]),
            courseTwoId: known(courseId, b.courses[1]),
            price: b.price === null ? null : money(b.price),
            priceNonMember: b.priceNonMember === null ? null : money(b.priceNonMember),
          })),
        )
        .returning({ id: bundles.id, name: bundles.name });
      for (const r of rows) bundleId.set(r.name, r.id);
      count('bundles', rows.length);
    }

    // Activity: computed deterministically, then inserted with ON CONFLICT / existence checks.
    await insertActivity(tx, { now, random, userId, courseId, bundleId, count });

    // The demo teacher's API key: created once, returned in clear only then.
    const teacherId = teacherIds[1];
    const [hasKey] = await tx
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.userId, teacherId), eq(apiKeys.name, DEMO_API_KEY_NAME), isNull(apiKeys.revokedAt)))
      .limit(1);
    if (hasKey) return null;
    const generated = generateApiKey();
    await tx.insert(apiKeys).values({ keyHash: generated.keyHash, prefix: generated.prefix, userId: teacherId, name: DEMO_API_KEY_NAME });
    count('api_keys', 1);
    return generated.key;
  });

  return { apiKey, teacherEmail: DEMO_TEACHER_EMAIL, inserted };
}

async function insertCourse(
  tx: Db,
  course: DemoCourse,
  index: number,
  ctx: { teacherId: string; categoryId: number | null; now: Date; count: (t: string, n: number) => void },
): Promise<number> {
  const start = new Date(ctx.now.getTime() - (90 - index) * DAY_MS);
  start.setUTCHours(1, 0, 0, 0);
  const end = new Date(start.getTime() + (course.type === 'scheduled' ? 45 : 365) * DAY_MS);
  const sections = detailSectionsFor(course);
  const [row] = await tx
    .insert(courses)
    .values({
      name: course.name,
      description: `Kelas ${course.name.toLowerCase()} yang disusun oleh ${course.instructor}: materi ringkas, contoh dari praktik di Indonesia, kuis di setiap bab dan ujian akhir bersertifikat.`,
      instructor: course.instructor,
      courseCode: course.code,
      type: course.type ?? 'self_paced',
      enrollmentType: course.enrollmentType ?? 'code',
      enrollmentCode: (course.enrollmentType ?? 'code') === 'code' ? `DAFTAR-${course.code}` : null,
      startDate: start,
      endDate: end,
      teacherId: ctx.teacherId,
      institutionId: DEMO_INSTITUTION.id,
      categoryId: ctx.categoryId,
      eventCode: course.state === 'live' ? `EV-${course.code}-2025` : null,
      isPublished: course.state !== 'draft',
      nilaiKum: course.nilaiKum,
      coverPicture: `https://images.demo.lms/covers/${course.code.toLowerCase()}.jpg`,
      previewMode: index % 5 === 0,
      isPurchasable: course.price > 0,
      price: money(course.price),
      priceNonMember: course.priceNonMember === null ? null : money(course.priceNonMember),
      priceMahasiswa: course.priceMahasiswa === null ? null : money(course.priceMahasiswa),
      currency: 'IDR',
      minPassingScore: 70,
      ...sections,
    })
    .returning({ id: courses.id });
  const courseId = row.id;
  ctx.count('courses', 1);
  if (course.nilaiKum !== null && course.nilaiKum > 0) {
    // The value a learner earns is an accreditation's (docs/authoring.md, "Accreditations").
    await tx.insert(courseAccreditations).values({
      courseId,
      scheme: 'KUM',
      reference: `SK-DEMO-${course.code}`,
      validFrom: new Date('2000-01-01T00:00:00Z'),
      value: course.nilaiKum,
    });
  }

  const moduleRows = await tx
    .insert(modules)
    .values(
      course.modules.map((name, i) => ({
        courseId,
        name,
        description: `Modul ${i + 1}: ${name}.`,
        orderIndex: i + 1,
      })),
    )
    .returning({ id: modules.id, orderIndex: modules.orderIndex, name: modules.name });
  ctx.count('modules', moduleRows.length);

  const chapterValues = moduleRows.flatMap((m) =>
    chapterNamesFor(m.name, m.orderIndex).map((name, i) => ({
      moduleId: m.id,
      courseId,
      name,
      content: `<h2>${name}</h2><p>Materi bab ini membahas ${name.toLowerCase()} dengan contoh kasus dan rangkuman di akhir bab.</p>`,
      orderIndex: i + 1,
    })),
  );
  const chapterRows = await tx
    .insert(chapters)
    .values(chapterValues)
    .returning({ id: chapters.id, moduleId: chapters.moduleId, orderIndex: chapters.orderIndex, name: chapters.name });
  ctx.count('chapters', chapterRows.length);

  // A quiz on the first chapter of each module, a quiz per module and the final exam.
  const quizValues = [
    ...chapterRows
      .filter((c) => c.orderIndex === 1)
      .map((c) => ({
        courseId,
        scope: 'chapter' as const,
        chapterId: c.id,
        name: `Kuis: ${c.name}`,
        description: 'Kuis singkat untuk memeriksa pemahaman bab.',
        minimumScore: 60,
        timeLimit: 10,
        maxAttempts: 3,
        topic: c.name,
      })),
    ...moduleRows.map((m) => ({
      courseId,
      scope: 'module' as const,
      moduleId: m.id,
      name: `Kuis Modul ${m.orderIndex}: ${m.name}`,
      description: 'Kuis akhir modul.',
      minimumScore: 70,
      timeLimit: 20,
      maxAttempts: 3,
      topic: m.name,
    })),
    {
      courseId,
      scope: 'final' as const,
      name: `Ujian Akhir ${course.name}`,
      description: 'Ujian akhir: lulus untuk memperoleh sertifikat dan SKPK.',
      quizType: 'mixed',
      minimumScore: 70,
      timeLimit: 60,
      maxAttempts: 2,
      topic: course.name,
    },
  ];
  const quizRows = await tx
    .insert(quizzes)
    .values(quizValues.map(({ topic: _topic, ...q }) => q))
    .returning({ id: quizzes.id, scope: quizzes.scope });
  ctx.count('quizzes', quizRows.length);

  const questionValues = quizRows.flatMap((q, i) => questionsFor(q.id, quizValues[i].topic, q.scope === 'final'));
  await tx.insert(questions).values(questionValues);
  ctx.count('questions', questionValues.length);
  return courseId;
}

/** Three multiple-choice questions (and a true/false and an essay for a final exam), with keys. */
function questionsFor(quizId: number, topic: string, final: boolean) {
  const mc = (order: number, text: string, options: [string, string, string, string], correct: number, explanation: string) => {
    const opts: QuestionOption[] = options.map((t, i) => ({ id: 'abcd'[i], text: t, isCorrect: i === correct }));
    return {
      quizId,
      questionText: text,
      questionType: 'multiple_choice' as const,
      options: opts,
      correctAnswer: 'abcd'[correct],
      explanation,
      points: 10,
      orderIndex: order,
    };
  };
  const list = [
    mc(
      1,
      `Apa tujuan utama mempelajari "${topic}"?`,
      [
        'Menghafal istilah tanpa konteks',
        'Menerapkan prinsipnya dalam pekerjaan',
        'Menghindari kewajiban pelaporan',
        'Mengganti peran auditor eksternal',
      ],
      1,
      `Materi "${topic}" dirancang agar dapat langsung diterapkan dalam praktik.`,
    ),
    mc(
      2,
      `Manakah langkah pertama yang paling tepat dalam ${topic.toLowerCase()}?`,
      [
        'Mengidentifikasi ketentuan yang berlaku',
        'Langsung menyusun laporan akhir',
        'Meminta persetujuan direksi',
        'Mengabaikan dokumentasi',
      ],
      0,
      'Setiap penerapan dimulai dengan memahami ketentuan yang berlaku.',
    ),
    mc(
      3,
      `Dokumen apa yang sebaiknya disimpan sebagai bukti penerapan ${topic.toLowerCase()}?`,
      ['Catatan pribadi yang tidak diarsipkan', 'Percakapan lisan saja', 'Kertas kerja dan dokumen pendukung', 'Tidak perlu ada dokumen'],
      2,
      'Kertas kerja dan dokumen pendukung memungkinkan penelaahan ulang.',
    ),
  ];
  if (!final) return list;
  return [
    ...list,
    {
      quizId,
      questionText: `Benar atau salah: ${topic} hanya relevan bagi perusahaan terbuka.`,
      questionType: 'true_false' as const,
      options: [
        { id: 'a', text: 'Benar', isCorrect: false },
        { id: 'b', text: 'Salah', isCorrect: true },
      ],
      correctAnswer: 'b',
      explanation: 'Prinsipnya berlaku pula bagi entitas lain, termasuk UMKM dan sektor publik.',
      points: 10,
      orderIndex: 4,
    },
    {
      quizId,
      questionText: `Jelaskan dengan singkat bagaimana Anda akan menerapkan ${topic.toLowerCase()} di tempat kerja Anda.`,
      questionType: 'essay' as const,
      options: [],
      correctAnswer: null,
      essayAnswer: 'Jawaban yang baik menyebut ketentuan yang berlaku, langkah penerapan, dokumentasi dan evaluasi berkala.',
      explanation: 'Dinilai oleh pengajar dengan rubrik.',
      points: 20,
      orderIndex: 5,
    },
  ];
}

async function insertActivity(
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

function money(n: number): string {
  return n.toFixed(2);
}

/** A small seeded PRNG: the same demo data on every run. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
