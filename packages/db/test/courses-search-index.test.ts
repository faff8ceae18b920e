import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import t from 'tap';
import type { Db } from '../src/client.js';
import { createTestDb } from '../src/testing.js';
import { makeCourseOnOlderSchema, testDatabaseUrl } from './helpers.js';

// A catalog search reads the trigram index of search_text. With GIN's default (fastupdate on) a
// new course's entries wait in a pending list that every search reads whole until a vacuum
// merges it; since 0007 they go straight into the index, so a search reads the same pages
// however many courses were created since the last vacuum.

const CREATED = 300;

/**
 * Index pages (buffers) a search for a term none of the new courses holds reads: before creating
 * CREATED courses, after, and after a VACUUM. The index itself grows with the new courses (its
 * tree gets deeper), so the after-vacuum figure is the one to compare with.
 */
async function searchPagesAroundCreations(db: Db) {
  const first = await makeCourseOnOlderSchema(db, 'Kimia organik dasar');
  const searchPages = () =>
    db.transaction(async (tx) => {
      // The table is small: make PostgreSQL use the index, as it does on a real catalogue.
      await tx.execute(sql`set local enable_seqscan = off`);
      const { rows } = await tx.execute<{ 'QUERY PLAN': unknown }>(
        sql`explain (analyze, buffers, format json) select id from courses where search_text ilike '%kimia organik%'`,
      );
      return indexScanBuffers(rows[0]?.['QUERY PLAN']);
    });
  const before = await searchPages();
  // One course per statement, as the API creates them. Their text has many trigrams, none of the
  // searched term's (hex words, no 'k'), so the term's own entries in the index do not grow.
  for (let i = 0; i < CREATED; i += 1) {
    await db.execute(sql`
      insert into courses (name, description, instructor, course_code, teacher_id, institution_id)
      values (${`Course ${i} ${randomWords()}`}, ${randomWords()}, ${`Pengajar ${i}`}, ${`SI-${i}`}, ${first.teacherId}, ${first.institutionId})`);
  }
  const afterCreations = await searchPages();
  // What the same search reads once VACUUM has merged any pending list into the index.
  await db.execute(sql`vacuum courses`);
  const afterVacuum = await searchPages();
  return { before, afterCreations, afterVacuum };
}

function randomWords(): string {
  return Array.from({ length: 6 }, () => randomBytes(4).toString('hex')).join(' ');
}

/** Shared buffers (hit + read) of the plan's bitmap index scan of the trigram index. */
function indexScanBuffers(plan: unknown): number {
  const root = (typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: PlanNode }[];
  const scan = findNode(root[0]?.Plan, (n) => n['Node Type'] === 'Bitmap Index Scan' && n['Index Name'] === 'courses_search_trgm_idx');
  if (!scan) throw new Error(`no bitmap index scan of courses_search_trgm_idx in ${JSON.stringify(root)}`);
  return Number(scan['Shared Hit Blocks'] ?? 0) + Number(scan['Shared Read Blocks'] ?? 0);
}

type PlanNode = { 'Node Type': string; 'Index Name'?: string; Plans?: PlanNode[]; [key: string]: unknown };

function findNode(node: PlanNode | undefined, match: (n: PlanNode) => boolean): PlanNode | undefined {
  if (!node) return undefined;
  if (match(node)) return node;
  for (const child of node.Plans ?? []) {
    const found = findNode(child, match);
    if (found) return found;
  }
  return undefined;
}

t.test('before 0007: the courses created since the last vacuum wait in a pending list every search reads', async (t) => {
  const h = await createTestDb(testDatabaseUrl, { migratedUpTo: '0006_courses_fillfactor' });
  t.teardown(() => h.destroy());
  const { before, afterCreations, afterVacuum } = await searchPagesAroundCreations(h.db);
  t.ok(
    afterCreations > afterVacuum + 30,
    `a search read ${afterCreations} index pages after ${CREATED} courses were created, ${afterVacuum} after a vacuum (${before} before)`,
  );
});

t.test('since 0007: the trigram index takes new entries at once, and a search reads what it reads after a vacuum', async (t) => {
  const h = await createTestDb(testDatabaseUrl);
  t.teardown(() => h.destroy());
  const { rows } = await h.db.execute<{ options: string[] | null }>(
    sql`select reloptions as options from pg_class where relname = 'courses_search_trgm_idx'`,
  );
  t.same(rows[0]?.options, ['fastupdate=off']);
  const { before, afterCreations, afterVacuum } = await searchPagesAroundCreations(h.db);
  t.equal(
    afterCreations,
    afterVacuum,
    `a search read ${afterCreations} index pages after ${CREATED} courses were created, as many as after a vacuum (${before} before)`,
  );
});
