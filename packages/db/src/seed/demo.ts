/**
 * The demo seed's entry point: institution, people, partner and identities, categories, the
 * catalog's courses (demo-course-rows.ts), the quick course, bundles, activity
 * (demo-activity.ts) and the demo teacher's API key, in one idempotent transaction.
 */
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../client.js';
import { insertQuickCourse } from './demo-quick-course.js';
import { generateApiKey } from '../credentials.js';
import { apiKeys, bundles, categories, courses, identities, institutions, partnerInstitutions, partners, users } from '../schema/index.js';
import {
  DEMO_API_KEY_NAME,
  DEMO_BUNDLES,
  DEMO_CATEGORIES,
  DEMO_COURSES,
  DEMO_INSTITUTION,
  DEMO_PARTNER,
  DEMO_STAFF,
  DEMO_STUDENTS,
  DEMO_TEACHER_EMAIL,
} from './demo-catalog.js';
import { insertActivity } from './demo-activity.js';
import { insertCourse } from './demo-course-rows.js';
import { known, money, mulberry32 } from './demo-util.js';

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

    // Institution 1 with its transfer account (set once: an admin may change or remove it), with the sequence moved past it so later inserts do not collide.
    const inst = await tx
      .insert(institutions)
      .values({ ...DEMO_INSTITUTION })
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
