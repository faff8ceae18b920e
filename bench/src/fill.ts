/**
 * The bench database: created, migrated and filled once per size (the synthetic seed, then a few
 * bench-only rows the seed does not make), reused while the sizes match. What was filled is kept
 * in a `bench_meta` table of that database (not part of the app's schema; the bench owns the database).
 */
import { apiKeys, createDb, type DbHandle, generateApiKey, migrate, partnerInstitutions, partnerKeys, partners } from '@lms/db';
import { seedSynthetic, type SyntheticSize } from '@lms/db/seed';
import { makePartnerKey } from '@lms/partner-auth/testing';
import { eq, sql } from 'drizzle-orm';
import type { CryptoKey } from 'jose';
import pg from 'pg';
import { fillReportCourse, REPORT_COURSE_VERSION, REPORT_PARTICIPANTS } from './fill-report.js';

/** Bumped when the bench-only fill changes, so older databases are filled again. */
const EXTRAS_VERSION = 1;
export const BENCH_ISSUER = 'bench-partner.test';
/** The synthetic seed's institution: its teacher's, and the one the bench partner creates courses for. */
export const BENCH_INSTITUTION_ID = 1;
export const RETURNING_USERS = 500;
/** Bundles in the bench database: GET /api/recommended-courses answers all of them (40 courses). */
export const BENCH_BUNDLES = 20;
export const BENCH_POST_CODE = 'bench-post';

export interface FilledDb {
  handle: DbHandle;
  url: string;
  teacherId: string;
  detailCourseId: number;
  /** The course of REPORT_PARTICIPANTS participants with their evidence (fill-report.ts). */
  reportCourseId: number;
  reused: boolean;
  fillMs: number;
}

interface Meta {
  sizes?: SyntheticSize;
  synthetic?: boolean;
  extras?: { version: number; detailCourseId: number };
  bundles?: number;
  reportCourse?: { version: number; courseId: number };
  vacuumed?: boolean;
}

export function dbUrl(base: string, name: string): string {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function adminQuery(base: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: dbUrl(base, 'postgres') });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

async function readMeta(handle: DbHandle): Promise<Meta> {
  await handle.db.execute(sql`create table if not exists bench_meta (key text primary key, value jsonb not null)`);
  const rows = (await handle.db.execute<{ key: string; value: unknown }>(sql`select key, value from bench_meta`)).rows;
  return Object.fromEntries(rows.map((r) => [r.key, r.value])) as Meta;
}

async function writeMeta(handle: DbHandle, key: keyof Meta, value: unknown) {
  await handle.db.execute(
    sql`insert into bench_meta (key, value) values (${key}, ${JSON.stringify(value)}::jsonb) on conflict (key) do update set value = excluded.value`,
  );
}

const sameSize = (a: SyntheticSize | undefined, b: SyntheticSize) =>
  !!a && a.courses === b.courses && a.students === b.students && a.enrollments === b.enrollments && a.completions === b.completions;

/** The database `name`, filled with `size` (reused when it already is). */
export async function prepareDatabase(base: string, name: string, size: SyntheticSize, log: (line: string) => void): Promise<FilledDb> {
  const started = Date.now();
  const url = dbUrl(base, name);
  // biome-ignore lint/style/noNonNullAssertion: rowCount is set for a SELECT.
  const exists = (await adminQuery(base, 'select 1 from pg_database where datname = $1', [name])).rowCount! > 0;
  let handle: DbHandle | null = null;
  let meta: Meta = {};
  if (exists) {
    handle = createDb({ databaseUrl: url, poolMax: 10 });
    meta = await readMeta(handle);
    if (!sameSize(meta.sizes, size)) {
      log(`${name}: filled with other sizes (${JSON.stringify(meta.sizes ?? null)}); dropping it`);
      await handle.close();
      handle = null;
      await adminQuery(base, `drop database ${name} with (force)`);
    }
  }
  if (!handle) {
    await adminQuery(base, `create database ${name}`);
    handle = createDb({ databaseUrl: url, poolMax: 10 });
    meta = await readMeta(handle);
    await writeMeta(handle, 'sizes', size);
  }
  await migrate(handle);
  const reused =
    !!meta.synthetic &&
    meta.extras?.version === EXTRAS_VERSION &&
    meta.bundles === BENCH_BUNDLES &&
    meta.reportCourse?.version === REPORT_COURSE_VERSION &&
    !!meta.vacuumed;
  if (!meta.synthetic) {
    log(`${name}: synthetic seed ${JSON.stringify(size)} ...`);
    let last = '';
    await seedSynthetic(handle.db, size, (p) => {
      const line = `  ${p.phase} ${Math.round((100 * p.done) / Math.max(1, p.total))}%`;
      if (line !== last) {
        last = line;
        log(line);
      }
    });
    await writeMeta(handle, 'synthetic', true);
  }
  const teacherId = await syntheticTeacher(handle);
  if (meta.extras?.version !== EXTRAS_VERSION) {
    log(`${name}: bench-only rows (detail course, purchases, certificates, returning SSO users) ...`);
    const detailCourseId = await fillExtras(handle, teacherId);
    meta.extras = { version: EXTRAS_VERSION, detailCourseId };
    await writeMeta(handle, 'extras', meta.extras);
  }
  if (meta.bundles !== BENCH_BUNDLES) {
    log(`${name}: ${BENCH_BUNDLES} bundles ...`);
    await fillBundles(handle);
    await writeMeta(handle, 'bundles', BENCH_BUNDLES);
  }
  if (meta.reportCourse?.version !== REPORT_COURSE_VERSION) {
    log(`${name}: the report course (${REPORT_PARTICIPANTS.toLocaleString('en-US')} participants with their evidence) ...`);
    meta.reportCourse = { version: REPORT_COURSE_VERSION, courseId: await fillReportCourse(handle, teacherId) };
    await writeMeta(handle, 'reportCourse', meta.reportCourse);
  }
  if (!meta.vacuumed) {
    // The load leaves every course and enrollment row updated several times (the counters are
    // recomputed at the end): on 10k courses, 50k dead row versions and no visibility map, so
    // every count is a sequential scan of a table five times its size. A live database is
    // vacuumed by autovacuum long before it serves traffic (autovacuum is off on the bench
    // machine's server); the bench does it once, here.
    log(`${name}: VACUUM (ANALYZE) and REINDEX TABLE courses after the load ...`);
    await handle.db.execute(sql`vacuum (analyze)`);
    // The seed rebuilds the course indexes after its counter recomputation (seedSynthetic); the
    // bench's own rows after it (purchases, certificates: bulk inserts whose triggers rewrite
    // their courses' rows within one statement) bloat them again the same way, so once more.
    await handle.db.execute(sql`reindex table courses`);
    await writeMeta(handle, 'vacuumed', true);
  }
  return {
    handle,
    url,
    teacherId,
    detailCourseId: meta.extras.detailCourseId,
    reportCourseId: meta.reportCourse.courseId,
    reused,
    fillMs: Date.now() - started,
  };
}

/**
 * Bundles for the bundles scenario (the synthetic seed makes none): pairs of the newest
 * buyer-visible courses with a category, as a storefront would show them. Replaces any bundles
 * an earlier run made.
 */
async function fillBundles(handle: DbHandle) {
  await handle.db.transaction(async (tx) => {
    await tx.execute(sql`delete from bundles`);
    await tx.execute(sql`
      with picked as (
        select id, category_id, row_number() over (order by id desc) as n from courses
        where is_published and event_code is not null and category_id is not null
        order by id desc limit ${BENCH_BUNDLES * 2}
      )
      insert into bundles (name, description, category_id, course_one_id, course_two_id)
      select 'Paket Uji ' || (a.n + 1) / 2, 'Dua kursus sekaligus', a.category_id, a.id, b.id
      from picked a join picked b on b.n = a.n + 1 where a.n % 2 = 1`);
  });
}

async function syntheticTeacher(handle: DbHandle): Promise<string> {
  const [row] = (
    await handle.db.execute<{ id: string }>(
      sql`select id from users where email like '%-teacher@synthetic.lms' order by created_at limit 1`,
    )
  ).rows;
  if (!row) throw new Error('no synthetic teacher in the bench database');
  return row.id;
}

/**
 * What the synthetic seed does not make: a large course (10 modules x 10 chapters, a quiz of 5
 * questions per chapter and per module, a final exam) for the detail scenario; paid purchases over
 * the last 30 days (one enrollment in 50) and certificates (one in 100) for the progress metrics;
 * SSO users of the bench partner who sign in again (returning users).
 */
async function fillExtras(handle: DbHandle, teacherId: string): Promise<number> {
  return handle.db.transaction(async (tx) => {
    // The oldest synthetic course becomes the large one: it then sits on the last page of the
    // id-ordered catalog, so the list scenarios (page 1, page 500) see ordinary courses only.
    const [course] = (
      await tx.execute<{ id: number }>(sql`
        update courses set name = 'Kursus Besar Uji Detail', description = 'Sepuluh modul, seratus bab, kuis di setiap bab dan modul',
                           instructor = 'Pengajar Detail', course_code = 'bench-detail'
        where id = (select min(id) from courses where teacher_id = ${teacherId} and is_published and event_code is not null)
        returning id`)
    ).rows;
    const courseId = Number(course.id);
    await tx.execute(sql`delete from chapter_completions where course_id = ${courseId}`);
    await tx.execute(sql`delete from quizzes where course_id = ${courseId}`);
    await tx.execute(sql`delete from chapters where course_id = ${courseId}`);
    await tx.execute(sql`delete from modules where course_id = ${courseId}`);
    await tx.execute(sql`
      insert into modules (course_id, name, description, order_index)
      select ${courseId}, 'Modul ' || m, 'Uraian modul ' || m, m from generate_series(1, 10) m`);
    await tx.execute(sql`
      insert into chapters (module_id, course_id, name, content, order_index)
      select m.id, ${courseId}, 'Bab ' || m.order_index || '.' || k, repeat('Isi bab. ', 40), k
      from modules m cross join generate_series(1, 10) k where m.course_id = ${courseId}
      order by m.order_index, k`);
    await tx.execute(sql`
      insert into quizzes (course_id, scope, module_id, chapter_id, name)
      select ${courseId}::int, 'chapter'::quiz_scope, c.module_id, c.id, 'Kuis ' || c.name from chapters c where c.course_id = ${courseId}
      union all
      select ${courseId}::int, 'module'::quiz_scope, m.id, null::int, 'Kuis ' || m.name from modules m where m.course_id = ${courseId}
      union all
      select ${courseId}::int, 'final'::quiz_scope, null::int, null::int, 'Ujian Akhir'`);
    await tx.execute(sql`
      insert into questions (quiz_id, question_text, options, correct_answer, explanation, order_index)
      select q.id, 'Pertanyaan ' || n || ' dari ' || q.name,
             jsonb_build_array(jsonb_build_object('id', 'a', 'text', 'Pilihan A', 'isCorrect', true),
                               jsonb_build_object('id', 'b', 'text', 'Pilihan B', 'isCorrect', false),
                               jsonb_build_object('id', 'c', 'text', 'Pilihan C', 'isCorrect', false),
                               jsonb_build_object('id', 'd', 'text', 'Pilihan D', 'isCorrect', false)),
             'a', 'Karena A', n
      from quizzes q cross join generate_series(1, 5) n where q.course_id = ${courseId}`);
    await tx.execute(sql`
      insert into purchases (user_id, course_id, amount, status, paid_at, created_at)
      select user_id, course_id, 100000 + (id % 20) * 25000, 'paid',
             now() - make_interval(days => id % 30, hours => 1), now() - make_interval(days => id % 30, hours => 1)
      from enrollments where id % 50 = 0`);
    await tx.execute(sql`
      insert into certificates (user_id, course_id, issued_at)
      select user_id, course_id, now() - make_interval(days => id % 60) from enrollments where id % 100 = 7
      on conflict do nothing`);
    await tx.execute(sql`
      with created as (
        insert into users (email, name, role, tier, membership_id)
        select 'bench-ret-' || g || '@bench.test', 'Anggota Kembali ' || g, 'student', 'anggota', 'bench-ret-' || g
        from generate_series(1, ${RETURNING_USERS}::int) g
        on conflict do nothing
        returning id, membership_id
      )
      insert into identities (issuer, membership_id, user_id, origin)
      select ${BENCH_ISSUER}, membership_id, id, 'sso' from created
      on conflict do nothing`);
    return courseId;
  });
}

export interface RunFixtures {
  /** Clear API keys of the synthetic teacher (the rate limit is per key). */
  apiKeys: string[];
  apiKeyHashes: string[];
  privateKey: CryptoKey;
  kid: string;
}

/** Per run: fresh API keys and a fresh partner signing key (the clear keys are not stored anywhere). */
export async function prepareRun(handle: DbHandle, teacherId: string, keyCount: number): Promise<RunFixtures> {
  const db = handle.db;
  await db.delete(apiKeys).where(eq(apiKeys.name, 'bench'));
  const keys = Array.from({ length: keyCount }, () => generateApiKey());
  for (let i = 0; i < keys.length; i += 1000) {
    await db
      .insert(apiKeys)
      .values(keys.slice(i, i + 1000).map((k) => ({ keyHash: k.keyHash, prefix: k.prefix, userId: teacherId, name: 'bench' })));
  }
  // Courses the previous run created through POST /api/courses (some 10,000, deleted at its end
  // or here), then what a live server's autovacuum would have done after them (it is off on the
  // bench server): remove their dead rows and their index entries. Before migration 0007 their
  // ~90 search trigrams each also waited in the GIN index's pending list, which every search
  // reads whole until a vacuum merges it: a run after another measured search at 0.66 of no
  // search instead of 0.77 (341 buffers per match instead of 184). Every table, not only courses:
  // the authoring rows (13i imports a 10x10 course document per request) and the purchases and
  // events the previous run wrote are dead rows too; a quick run after another on 2026-11-27
  // measured the list's own SQL at 9 req/s instead of 268 with only courses vacuumed.
  await db.execute(sql`delete from courses where course_code = ${BENCH_POST_CODE}`);
  await db.execute(sql`vacuum (analyze)`);

  const { privateKey, kid, publicPem } = await makePartnerKey(`bench-${Date.now().toString(36)}`);
  const [partner] = await db
    .insert(partners)
    .values({ issuer: BENCH_ISSUER, name: 'Bench Partner' })
    .onConflictDoUpdate({ target: partners.issuer, set: { isActive: true, jwksUrl: null } })
    .returning({ id: partners.id });
  await db.delete(partnerKeys).where(eq(partnerKeys.partnerId, partner.id));
  await db.insert(partnerKeys).values({ partnerId: partner.id, kid, publicKeyPem: publicPem });
  // The course-creation scenario creates for the synthetic teacher's institution (1): bound, as `partner bind` does.
  await db.insert(partnerInstitutions).values({ partnerId: partner.id, institutionId: BENCH_INSTITUTION_ID }).onConflictDoNothing();
  return { apiKeys: keys.map((k) => k.key), apiKeyHashes: keys.map((k) => k.keyHash), privateKey, kid };
}
