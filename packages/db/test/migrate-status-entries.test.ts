import { sql } from 'drizzle-orm';
import t from 'tap';
import type { Db } from '../src/client.js';
import { migrate } from '../src/migrate.js';
import { createTestDb } from '../src/testing.js';
import { testDatabaseUrl } from './helpers.js';

// Migrations 0016 and 0017: certificates.status_entry, where a certificate's revocation bit is in
// the public Bitstring Status Lists (list floor(e / 131072) + 1, index e mod 131072). Certificates
// from before keep e = id (what their downloaded credentials name); new ones get a random free
// index, lists taking 65,536 certificates each, after the lists the old ones use. On PGlite, or on
// PostgreSQL with TEST_DATABASE_URL.

const LIST = 131_072;

async function rows<T>(db: Db, query: ReturnType<typeof sql>): Promise<T[]> {
  return (await db.execute(query)).rows as T[];
}

/** `n` new students and their certificates of the course, in one statement: their status entries in id order. */
async function certify(db: Db, courseId: number, n: number, tag: string): Promise<number[]> {
  await db.execute(sql`
    insert into users (id, email, name, role)
    select ${tag} || '-' || g, ${tag} || '-' || g || '@example.test', 'Learner ' || g, 'student' from generate_series(1, ${n}::int) g`);
  const made = await rows<{ entry: number }>(
    db,
    sql`insert into certificates (user_id, course_id)
        select ${tag} || '-' || g, ${courseId}::int from generate_series(1, ${n}::int) g
        returning status_entry as entry, id`,
  );
  return (made as unknown as { entry: number; id: number }[]).sort((a, b) => a.id - b.id).map((r) => r.entry);
}

async function makeCourse(db: Db): Promise<number> {
  await db.execute(sql`insert into users (id, email, name, role) values ('teacher', 'teacher@example.test', 'Teacher', 'teacher')`);
  const [institution] = await rows<{ id: number }>(db, sql`insert into institutions (name) values ('Institution') returning id`);
  const [course] = await rows<{ id: number }>(
    db,
    sql`insert into courses (name, teacher_id, institution_id) values ('Etika', 'teacher', ${institution!.id}) returning id`,
  );
  return course!.id;
}

t.test('0016/0017 keep the entries of certificates already issued and draw random ones in new lists after', async (t) => {
  const h = await createTestDb(testDatabaseUrl, { migratedUpTo: '0015_credential_development_keys' });
  t.teardown(() => h.destroy());
  const courseId = await makeCourse(h.db);
  // Certificates as issued so far, in lists 1 and 2 (ids from the serial), two of them revoked.
  await h.db.execute(sql`
    insert into users (id, email, name, role)
    select 'old-' || g, 'old-' || g || '@example.test', 'Old ' || g, 'student' from generate_series(1, 4) g`);
  await h.db.execute(sql`
    insert into certificates (id, user_id, course_id, revoked_at, revoked_reason) values
      (1, 'old-1', ${courseId}, null, null),
      (2, 'old-2', ${courseId}, now(), 'Wrong person'),
      (131075, 'old-3', ${courseId}, now(), 'Plagiarism'),
      (131076, 'old-4', ${courseId}, null, null)`);
  await h.db.execute(sql`select setval('certificates_id_seq', 131076)`);

  await migrate(h);

  t.same(
    await rows(h.db, sql`select id, status_entry as entry from certificates order by id`),
    [
      { id: 1, entry: 1 },
      { id: 2, entry: 2 },
      { id: 131075, entry: 131075 },
      { id: 131076, entry: 131076 },
    ],
    'every certificate keeps the bit its downloaded credential names (list id / 131072 + 1, index id mod 131072)',
  );

  const entries = await certify(h.db, courseId, 300, 'new');
  t.equal(new Set(entries).size, 300, 'new certificates: distinct entries');
  t.ok(
    entries.every((e) => e >= 2 * LIST && e < 3 * LIST),
    'in list 3, the first one after the lists the old certificates use',
  );
  const indexes = entries.map((e) => e % LIST);
  t.ok(Math.max(...indexes) - Math.min(...indexes) > 100_000, 'spread over the whole list');
  t.notOk(
    indexes.every((x, i) => i === 0 || x > indexes[i - 1]!),
    'not in the order they were issued',
  );

  // Concurrent issues (separate transactions on PostgreSQL) never take the same entry.
  const concurrent = await Promise.all(
    Array.from({ length: 20 }, (_, i) => h.db.transaction(async (tx) => (await certify(tx as unknown as Db, courseId, 1, `tx${i}`))[0]!)),
  );
  t.equal(new Set([...concurrent, ...entries]).size, 320, '20 concurrent issues: 20 more distinct entries');

  // One statement issuing 3,000 certificates (a bulk load) holds at most 64 advisory locks.
  const bulk = await certify(h.db, courseId, 3_000, 'bulk');
  t.equal(new Set(bulk).size, 3_000, 'a bulk insert: distinct entries');

  t.same(
    await rows(h.db, sql`select status_entry as entry from certificates where revoked_at is not null order by 1`),
    [{ entry: 2 }, { entry: 131075 }],
    'the revoked bits are where they were',
  );
  await h.db.execute(sql`update certificates set status_entry = 2 where id = 1`).then(
    () => t.fail('two certificates on one bit'),
    (err: { cause?: { code?: string } }) =>
      t.equal(err.cause?.code ?? (err as { code?: string }).code, '23505', 'one bit, one certificate'),
  );
  await h.db.execute(sql`insert into certificates (user_id, course_id, status_entry) values ('old-1', ${courseId}, null)`).then(
    () => t.fail('a certificate without a bit'),
    (err: { cause?: { code?: string } }) =>
      t.equal(err.cause?.code ?? (err as { code?: string }).code, '23502', 'every certificate has its bit'),
  );
});

t.test('a new database starts at list 1; a list takes 65,536 certificates, then the next list begins', async (t) => {
  const h = await createTestDb(testDatabaseUrl);
  t.teardown(() => h.destroy());
  const courseId = await makeCourse(h.db);
  const [first] = await certify(h.db, courseId, 1, 'first');
  t.ok(first! >= 0 && first! < LIST, `list 1 (entry ${first})`);
  await h.db.execute(sql`select setval('certificate_status_seq', 65535, false)`);
  const [last, next] = await certify(h.db, courseId, 2, 'edge');
  t.ok(last! < LIST, 'the 65,536th of list 1 is in list 1');
  t.ok(next! >= LIST && next! < 2 * LIST, 'the next one opens list 2');
});
