/**
 * `pnpm run bench [-- --quick] [-- --courses N --students N --enrollments N --completions N]`
 *
 * Starts the built LMS and gateway in child processes (serve.ts) on a PostgreSQL database of its
 * own (fill.ts), drives them with autocannon from this process, and compares every scenario with
 * a baseline measured in the same run. Prints a table and writes it as JSON to bench/results/.
 * Misses are reported, never fatal: the exit code is non-zero only when the bench could not run.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type AuthoringContext, exportCourse, importNewCourse, updateChapter } from '@lms/lms/authoring';
import { runInCreationTransaction } from '@lms/lms/idempotency';
import { createSession, findSession } from '@lms/lms/sessions';
import { signInMember } from '@lms/lms/sso';
import { CourseDocument } from '@lms/contracts';
import { signGatewayProof } from '@lms/partner-auth';
import { partnerClaims, signPartnerToken } from '@lms/partner-auth/testing';
import { GENERIC_PLAN_OPTIONS, plansGenerically, poolSizes, users } from '@lms/db';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import {
  BENCH_INSTITUTION_ID,
  BENCH_ISSUER,
  BENCH_POST_CODE,
  type FilledDb,
  prepareDatabase,
  prepareRun,
  RETURNING_USERS,
  type RunFixtures,
} from './fill.js';
import { type CapturedStatement, type ChildReply, type ParentRequest, waves } from './ipc.js';
import { type AlternatingSide, type HttpLoad, measure, measureAlternating, type Plan, runHttp, runLoop } from './load.js';
import { formatTable, makeRow, type Measurement, type RatioKind, type Row, type Target } from './report.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const benchDir = path.resolve(here, '..');

const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    quick: { type: 'boolean', default: false },
    courses: { type: 'string' },
    students: { type: 'string' },
    enrollments: { type: 'string' },
    completions: { type: 'string' },
    'pg-url': { type: 'string' },
    'no-pglite': { type: 'boolean', default: false },
  },
});

const quick = args.quick;
const whole = (v: string | undefined, fallback: number) => (v === undefined ? fallback : Number(v.replaceAll('_', '')));
const size = {
  courses: whole(args.courses, quick ? 1_000 : 10_000),
  students: whole(args.students, quick ? 2_000 : 100_000),
  enrollments: whole(args.enrollments, quick ? 20_000 : 1_000_000),
  completions: whole(args.completions, quick ? 100_000 : 10_000_000),
};
const plan: Plan = quick ? { warmupSeconds: 1, repetitions: 3, seconds: 2 } : { warmupSeconds: 3, repetitions: 3, seconds: 6 };
const dbName = quick ? 'lms_bench_quick' : 'lms_bench';
const pgBase = args['pg-url'] ?? process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const GATEWAY_SECRET = `bench-gateway-secret-${randomUUID()}`;
const CONNECTIONS = 50;
/** Consecutive catalog requests made with one API key before the next key takes over. */
const KEY_TURN = 50;
const log = (line: string) => process.stderr.write(`${line}\n`);
/** The node flags the LMS is deployed with: its Dockerfile's CMD between `node` and the script. */
const LMS_NODE_FLAGS = (() => {
  const cmd = /^CMD (\[.*\])\s*$/m.exec(readFileSync(path.resolve(benchDir, '../apps/lms/Dockerfile'), 'utf8'));
  if (!cmd) throw new Error('apps/lms/Dockerfile has no CMD line');
  return (JSON.parse(cmd[1]) as string[]).slice(1, -1);
})();
const load1 = () => Number(os.loadavg()[0].toFixed(2));

// ---------------------------------------------------------------------------------------------

interface Child {
  url: string;
  /** The LMS's session cookie name (null for the gateway). */
  cookieName: string | null;
  proc: ChildProcess;
}

/** The apps under test by URL, so a measurement of a load finds the process that serves it. */
const children = new Map<string, Child>();

/** An app under test in its own process; resolves with its URL once it listens. */
function startChild(mode: string, env: Record<string, string>): Promise<Child> {
  const proc = fork(path.join(here, 'serve.js'), [mode], {
    env: { ...process.env, ...env },
    // The LMS runs with the node flags its Dockerfile and `start` give it (apps/lms/Dockerfile).
    execArgv: mode === 'gateway' ? [] : LMS_NODE_FLAGS,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    proc.once('message', (m: ChildReply) => {
      if (m.type !== 'listening') return reject(new Error(`${mode} server said ${m.type} before listening`));
      const child = { url: m.url, cookieName: m.cookieName, proc };
      children.set(child.url, child);
      resolve(child);
    });
    proc.once('exit', (code) => reject(new Error(`${mode} server exited (${code}) before listening`)));
  });
}

/** One question to an app under test and its answer (one question at a time per child). */
function ask<T extends ChildReply['type']>(child: Child, request: ParentRequest, expect: T): Promise<Extract<ChildReply, { type: T }>> {
  return new Promise((resolve, reject) => {
    child.proc.once('message', (m: ChildReply) => {
      if (m.type === expect) resolve(m as Extract<ChildReply, { type: T }>);
      else reject(new Error(m.type === 'error' ? m.message : `expected ${expect}, got ${m.type}`));
    });
    child.proc.send(request);
  });
}

/** The served process's CPU milliseconds per response over the runs it was put around (warm-ups left out). */
function cpuMeter(child: Child | undefined) {
  let micros = 0;
  let responses = 0;
  return {
    around: async <T>(run: () => Promise<T>): Promise<T> => {
      if (!child) return run();
      const before = await ask(child, { type: 'stats' }, 'stats');
      const result = await run();
      const after = await ask(child, { type: 'stats' }, 'stats');
      micros += after.cpuMicros - before.cpuMicros;
      responses += after.responses - before.responses;
      return result;
    },
    add: (m: Measurement): Measurement => (responses > 0 ? { ...m, cpuMs: micros / 1000 / responses } : m),
  };
}

/** The served process's CPU milliseconds per response while `run` ran (warm-up included): one cpuMeter around it. */
async function withCpu<T extends Measurement>(child: Child | undefined, run: () => Promise<T>): Promise<T> {
  const meter = cpuMeter(child);
  return meter.add(await meter.around(run)) as T;
}

function stopChild(child: Child | null) {
  if (child && child.proc.exitCode === null) child.proc.kill('SIGTERM');
}

/** One request outside the measured runs: is the endpoint there and does it answer as expected? */
async function probe(load: HttpLoad): Promise<{ status: 'missing' | 'error'; note: string } | null> {
  const change = load.perRequest?.() ?? {};
  const res = await fetch(load.url + (change.path ?? load.path), {
    method: load.method ?? 'GET',
    headers: { ...load.headers, ...change.headers },
    body: load.body,
    redirect: 'manual',
  });
  const text = await res.text();
  if (res.status === load.expect) return null;
  if (res.status === 404 && load.expect !== 404) return { status: 'missing', note: `endpoint answers 404: ${text.slice(0, 120)}` };
  return { status: 'error', note: `probe answered ${res.status} (expected ${load.expect}): ${text.slice(0, 160)}` };
}

// ---------------------------------------------------------------------------------------------

interface Spec {
  id: string;
  scenario: string;
  baselineName: string;
  kind: RatioKind;
  target?: Target;
}

const rows: Row[] = [];
const measured = new Map<string, Measurement>();
const loads: Record<string, number> = {};

function record(spec: Spec, m: Measurement | null, base: Measurement | null, why?: { status: 'missing' | 'error'; note: string }) {
  const row = makeRow(spec, m, base, why);
  rows.push(row);
  log(
    `  -> ${row.id} ${row.scenario}: ${row.measured ? `${row.measured.rps.toFixed(0)} req/s p50 ${row.measured.p50.toFixed(2)} ms` : '—'} ${row.status} ${row.note}`,
  );
}

/** Measures a load once per run (baselines are shared by several scenarios); null with the reason when it cannot. */
async function measureHttp(
  key: string,
  load: HttpLoad,
): Promise<{ m: Measurement | null; why?: { status: 'missing' | 'error'; note: string } }> {
  const known = measured.get(key);
  if (known) return { m: known };
  try {
    const why = await probe(load);
    if (why) return { m: null, why };
    log(`measuring ${key} (${load.connections} connections, warm-up ${plan.warmupSeconds} s, ${plan.repetitions} x ${plan.seconds} s)`);
    const median = await withCpu(children.get(load.url), async () => (await measure((s) => runHttp(load, s), plan)).median);
    measured.set(key, median);
    loads[key] = load1();
    return { m: median };
  } catch (err) {
    return { m: null, why: { status: 'error', note: (err as Error).message } };
  }
}

async function measureLoop(key: string, op: (i: number) => Promise<void>, workers: number) {
  const known = measured.get(key);
  if (known) return { m: known };
  try {
    await op(-1);
    log(`measuring ${key} (${workers} workers, direct)`);
    const { median } = await measure((s) => runLoop(op, workers, s), plan);
    measured.set(key, median);
    loads[key] = load1();
    return { m: median };
  } catch (err) {
    return { m: null, why: { status: 'error' as const, note: (err as Error).message } };
  }
}

async function compare(
  spec: Spec,
  target: Promise<{ m: Measurement | null; why?: { status: 'missing' | 'error'; note: string } }>,
  base: () => ReturnType<typeof measureHttp>,
) {
  const t = await target;
  const b = t.m ? await base() : { m: measured.get(spec.baselineName) ?? null };
  record(spec, t.m, b.m, t.why ?? b.why ?? undefined);
}

/** A load of a paired measurement: how to check it answers (null: it does), and how to run it. */
interface PairSide {
  key: string;
  ready: () => Promise<{ status: 'missing' | 'error'; note: string } | null>;
  side: () => AlternatingSide & { child?: Child };
}

const httpSide = (key: string, load: HttpLoad): PairSide => ({
  key,
  ready: () => probe(load),
  side: () => ({ run: (s) => runHttp(load, s), child: children.get(load.url) }),
});

/** Paired measurements by `target | baseline`, so that a second row of the same pair (6p) reads the first's. */
const pairs = new Map<string, { target: Measurement; base: Measurement }>();

/**
 * A row with a target: the route and its baseline measured in alternation (measureAlternating),
 * so that the machine's drift between them does not enter the ratio. Both are measured afresh for
 * the pair, even when one of them was measured alone for another row (then the two figures of the
 * same load in the table can differ by that drift). Each load's CPU per response covers its
 * measured runs.
 */
async function comparePaired(spec: Spec, target: PairSide, base: PairSide) {
  const pairKey = `${target.key} | ${base.key}`;
  let pair = pairs.get(pairKey);
  if (!pair) {
    try {
      const why = (await target.ready()) ?? (await base.ready());
      if (why) return record(spec, null, null, why);
      log(
        `measuring ${target.key} and ${base.key} in alternation (warm-up ${plan.warmupSeconds} s each, ${plan.repetitions} x ${plan.seconds} s each)`,
      );
      const [a, b] = [target.side(), base.side()];
      const [cpuA, cpuB] = [cpuMeter(a.child), cpuMeter(b.child)];
      const measuredPair = await measureAlternating({ ...a, around: cpuA.around }, { ...b, around: cpuB.around }, plan);
      pair = { target: cpuA.add(measuredPair.a.median), base: cpuB.add(measuredPair.b.median) };
      pairs.set(pairKey, pair);
      for (const [key, m] of [
        [target.key, pair.target],
        [base.key, pair.base],
      ] as const) {
        if (!measured.has(key)) {
          measured.set(key, m);
          loads[key] = load1();
        }
      }
    } catch (err) {
      return record(spec, null, null, { status: 'error', note: (err as Error).message });
    }
  }
  record(spec, pair.target, pair.base);
}

/** How each route's recorded SQL was shaped, for the report (key: the baseline's name). */
const sqlShapes: Record<string, string> = {};

/** The replay's pools, split as createDb splits the LMS's (poolSizes): one for statements named for a generic plan. */
interface SqlPools {
  main: pg.Pool;
  generic: pg.Pool;
}

/**
 * The SQL baseline of a route (issue 14): the exact statements one request of `load` sends,
 * recorded at the LMS's driver, replayed straight through `pg` with a pool of the LMS's size, at
 * the load's concurrency, in the route's waves (statements it sent together go together). The
 * ratio of the route to it is what our process adds: HTTP, hooks, validation, row mapping,
 * serialization. Recorded after one unrecorded request, so caches are as warm as under load.
 */
function sqlSide(name: string, load: HttpLoad, pools: SqlPools): PairSide {
  let op: (() => Promise<void>) | null = null;
  return {
    key: name,
    ready: async () => {
      const child = children.get(load.url);
      if (!child) throw new Error(`no app under test at ${load.url}`);
      const warm = await probe(load);
      if (warm) return warm;
      await ask(child, { type: 'record-sql' }, 'recording');
      const why = await probe(load);
      const { statements } = await ask(child, { type: 'recorded-sql' }, 'recorded');
      if (why) return why;
      if (statements.length === 0) throw new Error('the route sent no SQL');
      const plan = waves(statements);
      sqlShapes[name] = `${statements.length} statements in ${plan.length} waves`;
      log(`${name}: ${sqlShapes[name]}`);
      const send = (s: CapturedStatement) =>
        (plansGenerically(s.name) ? pools.generic : pools.main).query({
          text: s.text,
          values: s.values,
          ...(s.name ? { name: s.name } : {}),
          ...(s.rowMode === 'array' ? { rowMode: 'array' as const } : {}),
        });
      const replay = async () => {
        for (const wave of plan) await Promise.all(wave.map(send));
      };
      await replay(); // once outside the measured runs: a statement that fails is an error row, not a count
      op = replay;
      return null;
    },
    side: () => {
      const replay = op;
      if (!replay) throw new Error(`${name}: not recorded`);
      return { run: (seconds) => runLoop(replay, load.connections, seconds) };
    },
  };
}

/** The bench's author: a super_admin (authors any course), with a session as a browser has it. */
async function benchAuthor(db: FilledDb['handle']['db'], lms: Child) {
  const email = 'bench-author@bench.test';
  await db.insert(users).values({ email, name: 'Bench Author', role: 'super_admin' }).onConflictDoNothing();
  const [author] = await db.select({ id: users.id }).from(users).where(sql`${users.email} = ${email}`);
  const session = await createSession(db, author.id, new Date(), 86_400_000);
  const ctx = (): AuthoringContext => ({
    author: { kind: 'session', userId: author.id, role: 'super_admin' },
    now: new Date(),
    requestId: null,
  });
  return { cookie: `${lms.cookieName}=${session.token}`, tokenHash: session.tokenHash, ctx };
}

/** A load side that calls a function in a closed loop of `workers` (a domain function called directly). */
const directSide = (key: string, op: () => Promise<void>, workers: number): PairSide => ({
  key,
  ready: async () => {
    await op();
    return null;
  },
  side: () => ({ run: (seconds) => runLoop(op, workers, seconds) }),
});

const IMPORTED_NAME = 'Kursus impor (bench)';

async function authoringRows(
  db: FilledDb['handle']['db'],
  lms: Child,
  detailCourseId: number,
  rotateKey: () => { headers: Record<string, string> },
) {
  const author = await benchAuthor(db, lms);
  const write = { 'content-type': 'application/json', cookie: author.cookie, 'x-requested-with': 'bench' };
  const { document } = await exportCourse(db, author.ctx(), detailCourseId);
  const importDoc = { ...document, course: { ...document.course, name: IMPORTED_NAME, eventCode: null } };
  const importBody = JSON.stringify(importDoc);
  const parsed = CourseDocument.parse(importDoc);
  const chapters = document.modules.flatMap((m) => m.chapters);
  log(`13: the document of course ${detailCourseId}: ${chapters.length} chapters, ${(importBody.length / 1024).toFixed(0)} KB`);
  /** The route's statements around the domain's: the session, then the work in the route's transaction. */
  const asTheRouteDoes = async (work: Parameters<typeof runInCreationTransaction>[1]) => {
    await findSession(db, author.tokenHash, new Date());
    await runInCreationTransaction(db, work);
  };
  try {
    await comparePaired(
      {
        id: '13i',
        scenario: `POST /api/course-documents, the ${document.modules.length}x${document.modules[0]?.chapters.length ?? 0} course document (1 connection)`,
        baselineName: 'its SQL: importNewCourse() called directly',
        kind: 'throughput',
        target: { minRatio: 0.6 },
      },
      httpSide('import', {
        url: lms.url,
        path: '/api/course-documents',
        method: 'POST',
        headers: write,
        body: importBody,
        connections: 1,
        expect: 201,
      }),
      directSide(
        'its SQL: importNewCourse() called directly',
        () =>
          asTheRouteDoes(async (tx) => {
            await importNewCourse(tx, author.ctx(), parsed);
            return { statusCode: 201, body: null };
          }),
        1,
      ),
    );
  } finally {
    await db.execute(sql`delete from courses where name = ${IMPORTED_NAME}`);
  }

  // One chapter edit: each request writes another text into one of 10 chapters of 10 courses (10
  // connections); the author's writes to one course wait for each other (its row lock).
  const targets = (
    await db.execute<{ id: number }>(sql`
      select min(ch.id)::int as id from chapters ch join courses c on c.id = ch.course_id
      where c.id <> ${detailCourseId} group by ch.course_id order by ch.course_id limit 10`)
  ).rows.map((r) => Number(r.id));
  let edits = 0;
  const nextEdit = () => {
    edits += 1;
    return { id: targets[edits % targets.length], content: `Isi bab, suntingan ${edits}.\n\n**Bacaan** baru.` };
  };
  const EDIT_CONNECTIONS = 10;
  await comparePaired(
    {
      id: '13e',
      scenario: `PATCH /api/chapters/{id}, one chapter edit (${EDIT_CONNECTIONS} connections)`,
      baselineName: 'its SQL: updateChapter() called directly',
      kind: 'throughput',
      target: { minRatio: 0.6 },
    },
    httpSide('chapter edit', {
      url: lms.url,
      path: `/api/chapters/${targets[0]}`,
      method: 'PATCH',
      headers: write,
      body: JSON.stringify({ content: 'Isi bab, suntingan pertama.' }),
      connections: EDIT_CONNECTIONS,
      expect: 200,
      perRequest: () => {
        const edit = nextEdit();
        return { path: `/api/chapters/${edit.id}`, body: JSON.stringify({ content: edit.content }) };
      },
    }),
    directSide(
      'its SQL: updateChapter() called directly',
      () => {
        const edit = nextEdit();
        return asTheRouteDoes(async (tx) => {
          await updateChapter(tx, author.ctx(), edit.id, { content: edit.content });
          return { statusCode: 200, body: null };
        });
      },
      EDIT_CONNECTIONS,
    ),
  );

  // The shared list (row 2's load) while one chapter is edited every 100 ms (during that side's
  // runs only): each edit makes this instance compute the list again for the next key. Report only.
  const whileEditing = async <T>(run: () => Promise<T>): Promise<T> => {
    let editing = true;
    const editor = (async () => {
      while (editing) {
        const edit = nextEdit();
        await fetch(`${lms.url}/api/chapters/${edit.id}`, {
          method: 'PATCH',
          headers: write,
          body: JSON.stringify({ content: edit.content }),
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      return await run();
    } finally {
      editing = false;
      await editor;
    }
  };
  const list: HttpLoad = { url: lms.url, path: '/api/courses?limit=12', connections: CONNECTIONS, expect: 200, perRequest: rotateKey };
  await comparePaired(
    {
      id: '13l',
      scenario: 'GET /api/courses?limit=12 while a chapter is edited every 100 ms',
      baselineName: 'the same, no edits',
      kind: 'throughput',
    },
    {
      key: 'list12 under edits',
      ready: () => probe(list),
      side: () => ({ run: (seconds) => whileEditing(() => runHttp(list, seconds)), child: lms }),
    },
    httpSide('list12 without edits', list),
  );
}

/**
 * A session of a returning member who is enrolled in the courses of the first list page (and the
 * first ten bundles' courses) with a few chapters done: the learner fields of a student's list are
 * filled, as a signed-in student sees them. Opened as the SSO callback opens it (signInMember).
 */
async function learnerSession(db: FilledDb['handle']['db'], lms: Child, apiKey: string): Promise<string> {
  const headers = { 'x-api-key': apiKey };
  const list = (await (await fetch(`${lms.url}/api/courses?limit=50`, { headers })).json()) as { courses: { id: number }[] };
  const bundles = (await (await fetch(`${lms.url}/api/recommended-courses`, { headers })).json()) as {
    recommendedCourses: { courseOne: { id: number }; courseTwo: { id: number } }[];
  };
  const courseIds = [
    ...new Set([
      ...list.courses.map((c) => c.id),
      ...bundles.recommendedCourses.slice(0, 10).flatMap((b) => [b.courseOne.id, b.courseTwo.id]),
    ]),
  ];
  const email = 'bench-ret-1@bench.test';
  const [user] = (await db.execute<{ id: string }>(sql`select id from users where email = ${email}`)).rows;
  if (!user) throw new Error(`${email} is not in the bench database`);
  const ids = sql.join(
    courseIds.map((id) => sql`${id}::int`),
    sql`, `,
  );
  await db.execute(
    sql`insert into enrollments (user_id, course_id) select ${user.id}::uuid, c from unnest(array[${ids}]) c on conflict do nothing`,
  );
  await db.execute(sql`
    insert into chapter_completions (user_id, chapter_id, course_id)
    select ${user.id}::uuid, ch.id, ch.course_id from chapters ch
    where ch.course_id = any(array[${ids}]) and ch.order_index <= 2
    on conflict do nothing`);
  const signIn = await signInMember(
    db,
    {
      issuer: BENCH_ISSUER,
      jti: randomUUID(),
      keepTokenUntil: new Date(Date.now() + 330_000),
      email,
      membershipId: 'bench-ret-1',
      tier: 'anggota',
      name: undefined,
    },
    new Date(),
    7 * 86_400_000,
  );
  if (signIn.outcome !== 'signed-in') throw new Error(`learner sign-in: ${signIn.outcome}`);
  return `${lms.cookieName ?? 'lms_session_token'}=${signIn.session.token}`;
}

// ---------------------------------------------------------------------------------------------

/** Tokens signed before a run (signing is the partner's cost, not ours), handed out one per request. */
class TokenPool {
  private tokens: string[] = [];
  private next = 0;
  constructor(
    private readonly fixtures: RunFixtures,
    private readonly claims: (i: number) => Record<string, unknown>,
  ) {}
  get remaining() {
    return this.tokens.length - this.next;
  }
  async fill(count: number) {
    const now = Math.floor(Date.now() / 1000);
    const start = this.tokens.length;
    const batch = await Promise.all(
      Array.from({ length: count }, (_, k) => signPartnerToken(this.fixtures, partnerClaims(BENCH_ISSUER, this.claims(start + k), now))),
    );
    this.tokens.push(...batch);
  }
  take(): string {
    // Running out shows as unexpected answers (a reused token is refused), never as a crash.
    return this.tokens[Math.min(this.next++, this.tokens.length - 1)];
  }
  /** At least `count` unused tokens (signed between repetitions, outside the measured time). */
  async ensure(count: number) {
    this.tokens = this.tokens.slice(this.next);
    this.next = 0;
    if (this.tokens.length < count) await this.fill(count - this.tokens.length);
  }
}

async function tokenScenario(key: string, pool: TokenPool, load: (take: () => string) => HttpLoad) {
  const known = measured.get(key);
  if (known) return { m: known };
  try {
    // Enough for the one-second probe run below at any rate this machine reaches.
    await pool.ensure(quick ? 1500 : 3000);
    const httpLoad = load(() => pool.take());
    const why = await probe(httpLoad);
    if (why) return { m: null, why };
    // Each run gets twice the tokens the previous one used, signed before it starts.
    let lastRps = Math.max(200, (await runHttp(httpLoad, 1)).rps);
    log(`measuring ${key} (${httpLoad.connections} connections, fresh tokens signed before each repetition)`);
    // CPU per request is read around the whole measurement, token signing between repetitions
    // included: signing happens in this process, not the served one.
    const median = await withCpu(children.get(httpLoad.url), async () => {
      const { median } = await measure(async (s) => {
        await pool.ensure(Math.ceil(lastRps * s * 2) + 500);
        const m = await runHttp(httpLoad, s);
        lastRps = Math.max(lastRps, m.rps);
        return m;
      }, plan);
      return median;
    });
    measured.set(key, median);
    loads[key] = load1();
    return { m: median };
  } catch (err) {
    return { m: null, why: { status: 'error' as const, note: (err as Error).message } };
  }
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const startedAt = new Date();
  const loadStart = os.loadavg();
  log(`bench ${quick ? '(quick) ' : ''}sizes ${JSON.stringify(size)} on ${dbName}; load ${loadStart.map((l) => l.toFixed(2)).join(' ')}`);

  const filled: FilledDb = await prepareDatabase(pgBase, dbName, size, log);
  log(`${dbName}: ${filled.reused ? 'reused' : 'filled'} in ${(filled.fillMs / 1000).toFixed(1)} s`);
  const keyCount = quick ? 5_000 : 20_000;
  const fixtures = await prepareRun(filled.handle, filled.teacherId, keyCount);
  const db = filled.handle.db;
  const enrollmentCount = Number((await db.execute<{ n: number }>(sql`select count(*)::int as n from enrollments`)).rows[0].n);

  const tmp = await mkdtemp(path.join(os.tmpdir(), 'lms-bench-'));
  let lms: Child | null = null;
  let lmsUncached: Child | null = null;
  let gateway: Child | null = null;
  let pglite: Child | null = null;
  try {
    lms = await startChild('lms', { BENCH_DATABASE_URL: filled.url, BENCH_GATEWAY_SECRET: GATEWAY_SECRET });
    // The same LMS with the shared API-key list answers off (CATALOG_CACHE_MS=0): every request
    // runs its SQL. Search and deep pages are measured here, where they cost what they cost.
    lmsUncached = await startChild('lms', {
      BENCH_DATABASE_URL: filled.url,
      BENCH_GATEWAY_SECRET: GATEWAY_SECRET,
      BENCH_CATALOG_CACHE_MS: '0',
    });
    const partnersFile = path.join(tmp, 'partners.json');
    await writeFile(partnersFile, JSON.stringify({ partners: [{ iss: BENCH_ISSUER, allowedIps: ['127.0.0.1/32'], lmsUrl: lms.url }] }));
    gateway = await startChild('gateway', { BENCH_PARTNERS_FILE: partnersFile, BENCH_GATEWAY_SECRET: GATEWAY_SECRET });
    log(`LMS at ${lms.url} (uncached list at ${lmsUncached.url}), gateway at ${gateway.url}`);

    // Keys in turns of KEY_TURN consecutive requests: a storefront's key is used in bursts and
    // stays in the LMS's 5-s key cache for its turn; the pool is large enough that no key passes
    // its 100 requests a minute at any rate reached here (keyCount x KEY_TURN requests per lap).
    let keyUse = 0;
    const rotateKey = () => ({ headers: { 'x-api-key': fixtures.apiKeys[Math.floor(keyUse++ / KEY_TURN) % fixtures.apiKeys.length] } });
    const catalog = (url: string, p: string): HttpLoad => ({ url, path: p, connections: CONNECTIONS, expect: 200, perRequest: rotateKey });
    // biome-ignore lint/style/noNonNullAssertion: started above, before any scenario runs.
    const r0 = () => measureHttp('R0', { url: lms!.url, path: '/bench/empty', connections: CONNECTIONS, expect: 200 });
    const uncachedUrl = lmsUncached.url;
    const uncachedList12 = catalog(uncachedUrl, '/api/courses?limit=12');
    const uncached12 = () => measureHttp('uncached list12', uncachedList12);

    // 1. R0 itself: the ceiling every ratio is taken against.
    const r0m = await r0();
    record({ id: '1', scenario: 'R0 empty route (LMS process)', baselineName: 'R0', kind: 'throughput' }, r0m.m, r0m.m, r0m.why);

    // 2-3. The catalog list as API keys get it (shared answers, CATALOG_CACHE_MS default), and
    // the same without sharing: what every first request of a page, and every session, costs.
    // limit=12 against R0 (≥ 0.4, p99 < 50 ms). limit=50's answer is big enough that sending it
    // bounds it (a ready answer of its size reaches ~0.25 of R0 on 2 cores), so its target is
    // against that ready answer instead (≥ 0.8, row 3s), and row 3 is reported only.
    for (const limit of [12, 50]) {
      const id = limit === 12 ? '2' : '3';
      await compare(
        {
          id,
          scenario: `GET /api/courses?limit=${limit}`,
          baselineName: 'R0',
          kind: 'throughput',
          target: limit === 12 ? { minRatio: 0.4, maxP99: 50 } : undefined,
        },
        measureHttp(`list${limit}`, catalog(lms.url, `/api/courses?limit=${limit}`)),
        r0,
      );
      // The same number of bytes from a ready string on the same process: what sending them costs.
      const bytes = (await (await fetch(`${lms.url}/api/courses?limit=${limit}`, { headers: rotateKey().headers })).arrayBuffer())
        .byteLength;
      const ready: Spec = {
        id: `${id}s`,
        scenario: `GET /api/courses?limit=${limit} against a ready answer of its size (${(bytes / 1024).toFixed(0)} KB)`,
        baselineName: `ready ${(bytes / 1024).toFixed(0)} KB answer`,
        kind: 'throughput',
        target: limit === 50 ? { minRatio: 0.8 } : undefined,
      };
      const readyLoad: HttpLoad = { url: lms.url, path: `/bench/bytes/${bytes}`, connections: CONNECTIONS, expect: 200 };
      if (ready.target) {
        await comparePaired(
          ready,
          httpSide(`list${limit}`, catalog(lms.url, `/api/courses?limit=${limit}`)),
          httpSide(`bytes ${bytes}`, readyLoad),
        );
      } else {
        await compare(ready, measureHttp(`list${limit}`, catalog(lms.url, `/api/courses?limit=${limit}`)), () =>
          measureHttp(`bytes ${bytes}`, readyLoad),
        );
      }
      await compare(
        {
          id: `${id}u`,
          scenario: `GET /api/courses?limit=${limit}, not shared (CATALOG_CACHE_MS=0)`,
          baselineName: 'R0',
          kind: 'throughput',
        },
        limit === 12 ? uncached12() : measureHttp('uncached list50', catalog(uncachedUrl, `/api/courses?limit=${limit}`)),
        r0,
      );
    }
    // 4-5. Search and a deep page against page 1, all three not shared.
    await comparePaired(
      {
        id: '4',
        scenario: 'GET /api/courses?limit=12&search=pengajar 42, not shared',
        baselineName: 'limit=12, no search, not shared',
        kind: 'throughput',
        target: { minRatio: 0.7 },
      },
      httpSide('search', catalog(uncachedUrl, `/api/courses?limit=12&search=${encodeURIComponent('pengajar 42')}`)),
      httpSide('uncached list12', uncachedList12),
    );
    // Page 500 when there are that many pages (not on the quick data set: its last full page then).
    const deepPage = Math.min(500, Math.floor(size.courses / 12));
    await compare(
      {
        id: '5',
        scenario: `GET /api/courses?limit=12&page=${deepPage}, not shared`,
        baselineName: 'page 1, not shared',
        kind: 'latency',
        target: { maxRatio: 1.5 },
      },
      measureHttp('deep page', catalog(uncachedUrl, `/api/courses?limit=12&page=${deepPage}`)),
      uncached12,
    );

    // 6. Detail of a course with 10 modules x 10 chapters, quizzes on every chapter and module.
    await compare(
      { id: '6', scenario: `GET /api/courses/{id}, 10x10 chapters, 111 quizzes (10 connections)`, baselineName: 'R0', kind: 'throughput' },
      // 10 connections, not 50: an answer is ~200 KB (555 questions), 50 in flight would only measure the queue.
      measureHttp('detail', { ...catalog(lms.url, `/api/courses/${filled.detailCourseId}`), connections: 10 }),
      r0,
    );

    // 6q-12q. Every read nobody shares against the exact SQL it sends, straight through pg at the
    // same concurrency (≥ 0.6): what our process adds to the database's cost. Detail's p50 too (≤ 2x).
    // The LMS's pool as createDb splits it: statements named for a generic plan (a search's page)
    // go to connections planning them once, as they do in the LMS.
    const sizes = poolSizes(10);
    const sqlPools: SqlPools = {
      main: new pg.Pool({ connectionString: filled.url, max: sizes.main }),
      generic: new pg.Pool({ connectionString: filled.url, max: sizes.generic, options: GENERIC_PLAN_OPTIONS }),
    };
    try {
      const learnerCookie = await learnerSession(db, lms, fixtures.apiKeys[fixtures.apiKeys.length - 2]);
      const lmsUrl = lms.url;
      const asLearner = (p: string): HttpLoad => ({
        url: lmsUrl,
        path: p,
        connections: CONNECTIONS,
        expect: 200,
        headers: { cookie: learnerCookie },
      });
      const reads: [string, string, string, HttpLoad][] = [
        [
          '6q',
          'GET /api/courses/{id}, 10x10 chapters (10 connections)',
          'detail',
          { ...catalog(lms.url, `/api/courses/${filled.detailCourseId}`), connections: 10 },
        ],
        ['2q', 'GET /api/courses?limit=12, not shared', 'uncached list12', uncachedList12],
        ['3q', 'GET /api/courses?limit=50, not shared', 'uncached list50', catalog(uncachedUrl, '/api/courses?limit=50')],
        [
          '4q',
          'GET /api/courses?limit=12&search=pengajar 42, not shared',
          'search',
          catalog(uncachedUrl, `/api/courses?limit=12&search=${encodeURIComponent('pengajar 42')}`),
        ],
        [
          '11q',
          "GET /api/courses?limit=12, a student's session (learner fields filled)",
          'learner list12',
          asLearner('/api/courses?limit=12'),
        ],
        ['12q', "GET /api/recommended-courses, a student's session", 'learner bundles', asLearner('/api/recommended-courses')],
      ];
      for (const [id, scenario, key, load] of reads) {
        const baselineName = `its SQL through pg (${key})`;
        const [route, base] = [httpSide(key, load), sqlSide(baselineName, load, sqlPools)];
        await comparePaired({ id, scenario, baselineName, kind: 'throughput', target: { minRatio: 0.6 } }, route, base);
        if (key === 'detail') {
          await comparePaired(
            { id: '6p', scenario: 'GET /api/courses/{id} p50 (10 connections)', baselineName, kind: 'latency', target: { maxRatio: 2 } },
            route,
            base,
          );
        }
      }
    } finally {
      await Promise.all([sqlPools.main.end(), sqlPools.generic.end()]);
    }

    // 7. Progress metrics vs the simplest full read of the same data, one request at a time. Keys
    // in turns, as the catalog's: one key would pass its 100 requests a minute within a second
    // (the answer comes from counters) and measure 429s.
    await compare(
      {
        id: '7',
        scenario: 'GET /api/lms-progress (1 connection)',
        baselineName: `SELECT count(*) FROM enrollments (${enrollmentCount.toLocaleString('en-US')} rows)`,
        kind: 'latency',
        target: { maxP50: 100, maxRatio: 3 },
      },
      measureHttp('progress', { url: lms.url, path: '/api/lms-progress', connections: 1, expect: 200, perRequest: rotateKey }),
      () =>
        measureLoop(
          `SELECT count(*) FROM enrollments (${enrollmentCount.toLocaleString('en-US')} rows)`,
          async () => {
            await db.execute(sql`select count(*) from enrollments`);
          },
          1,
        ),
    );

    // 8. SSO callback: every request a fresh token; half returning members, half new ones.
    const runId = Date.now().toString(36);
    const ssoClaims = (i: number) =>
      i % 2 === 0
        ? {
            email: `bench-ret-${((i / 2) % RETURNING_USERS) + 1}@bench.test`,
            membershipId: `bench-ret-${((i / 2) % RETURNING_USERS) + 1}`,
            tier: 'anggota',
          }
        : { email: `bench-new-${runId}-${i}@bench.test`, membershipId: `bench-new-${runId}-${i}`, name: `Anggota Baru ${i}`, tier: 'umum' };
    const ssoPool = new TokenPool(fixtures, ssoClaims);
    const SSO_CONNECTIONS = 20;
    let directIndex = 0;
    await compare(
      {
        id: '8',
        scenario: `SSO callback, fresh tokens, new + returning users (${SSO_CONNECTIONS} connections)`,
        baselineName: 'signInMember() called directly (member, then jti + session in one statement)',
        kind: 'cost',
        target: { minRps: 1000, maxRatio: 1.5 },
      },
      tokenScenario('sso', ssoPool, (take) => ({
        // biome-ignore lint/style/noNonNullAssertion: started above, before any scenario runs.
        url: lms!.url,
        path: '/api/auth/sso/callback',
        connections: SSO_CONNECTIONS,
        expect: 302,
        // With the gateway's proof, as the gateway's redirect gives it (one HMAC, the gateway's cost).
        perRequest: () => {
          const token = take();
          return { path: `/api/auth/sso/callback?token=${token}&proof=${signGatewayProof(GATEWAY_SECRET, token, Date.now() / 1000)}` };
        },
      })),
      () =>
        measureLoop(
          'signInMember() called directly (member, then jti + session in one statement)',
          // The endpoint's database work, called directly: the same function (domain/sso.ts), driver and pool size.
          async () => {
            const claims = ssoClaims(directIndex++ + 1_000_000);
            const signIn = await signInMember(
              db,
              {
                issuer: BENCH_ISSUER,
                jti: randomUUID(),
                keepTokenUntil: new Date(Date.now() + 330_000),
                name: undefined,
                ...claims,
                tier: claims.tier as 'anggota',
              },
              new Date(),
              7 * 86_400_000,
            );
            if (signIn.outcome !== 'signed-in') throw new Error(`direct sign-in: ${signIn.outcome}`);
          },
          SSO_CONNECTIONS,
        ),
    );

    // 9. The gateway: /sso/verify against an empty route of the gateway; course creation through it against straight to the LMS.
    const verifyPool = new TokenPool(fixtures, (i) => ssoClaims(i));
    await verifyPool.fill(1);
    const verifyToken = verifyPool.take();
    const gatewayR0 = httpSide('gateway R0', { url: gateway.url, path: '/bench/empty', connections: CONNECTIONS, expect: 200 });
    await comparePaired(
      { id: '9a', scenario: 'gateway GET /sso/verify', baselineName: 'gateway R0', kind: 'throughput', target: { minRatio: 0.7 } },
      httpSide('gateway verify', { url: gateway.url, path: `/sso/verify?token=${verifyToken}`, connections: CONNECTIONS, expect: 302 }),
      gatewayR0,
    );
    // The same 302 (Location, headers, query schema) ready, without the three checks: what the
    // HTTP part of /sso/verify costs, so the gap between 9a and R0 is seen to be the checks'.
    await comparePaired(
      { id: '9f', scenario: 'gateway 302 of /sso/verify, ready (no checks)', baselineName: 'gateway R0', kind: 'throughput' },
      httpSide('gateway ready 302', {
        url: gateway.url,
        path: `/bench/redirect?token=${verifyToken}`,
        connections: CONNECTIONS,
        expect: 302,
      }),
      gatewayR0,
    );
    const createBody = JSON.stringify({
      institutionId: BENCH_INSTITUTION_ID,
      name: 'Kursus dari Mitra (bench)',
      teacherId: filled.teacherId,
      courseCode: BENCH_POST_CODE,
    });
    const postPool = new TokenPool(fixtures, () => ({}));
    const POST_CONNECTIONS = 1;
    const post = (url: string, extra: Record<string, string>) => (take: () => string) =>
      ({
        url,
        path: '/api/courses',
        method: 'POST',
        body: createBody,
        headers: { 'content-type': 'application/json', ...extra },
        connections: POST_CONNECTIONS,
        expect: 201,
        perRequest: () => ({ headers: { authorization: `Bearer ${take()}` } }),
      }) satisfies HttpLoad;
    await compare(
      {
        id: '9b',
        scenario: 'POST /api/courses through the gateway (1 connection)',
        baselineName: 'POST straight to the LMS',
        kind: 'added',
        target: { maxAddedP50: 2 },
      },
      tokenScenario('post via gateway', postPool, post(gateway.url, {})),
      // biome-ignore lint/style/noNonNullAssertion: started above, before any scenario runs.
      () => tokenScenario('POST straight to the LMS', postPool, post(lms!.url, { 'x-gateway-secret': GATEWAY_SECRET })),
    );
    await db.execute(sql`delete from courses where course_code = ${BENCH_POST_CODE}`);

    // 13. Authoring: a course imported from the bench's 10 x 10 course document, and one chapter
    // edit, each against its SQL: the same domain function called directly, in a transaction as
    // the route runs it (lock_timeout set), after the same session lookup, on a pool of the LMS's
    // size. A write cannot be recorded and replayed as the reads are (6q-12q): the statements of an
    // import name the ids its inserts generated, and an edit replayed with the same text changes
    // nothing. Then the shared catalog list while chapters are edited (each edit makes the
    // instance forget its shared answers).
    await authoringRows(db, lms, filled.detailCourseId, rotateKey);

    // 10. Scenario 2 on embedded PGlite (in memory, same number of courses), report only.
    if (args['no-pglite']) {
      record(
        { id: '10', scenario: 'GET /api/courses?limit=12 on PGlite', baselineName: 'same on PostgreSQL', kind: 'throughput' },
        null,
        null,
        {
          status: 'missing',
          note: 'skipped (--no-pglite)',
        },
      );
    } else {
      try {
        const keysFile = path.join(tmp, 'keys.txt');
        await writeFile(keysFile, fixtures.apiKeyHashes.join('\n'));
        log(`PGlite: migrating and filling ${size.courses} courses in memory ...`);
        stopChild(gateway);
        gateway = null;
        pglite = await startChild('lms-pglite', {
          BENCH_PGLITE_COURSES: String(size.courses),
          BENCH_KEYS_FILE: keysFile,
          BENCH_CATALOG_CACHE_MS: '0',
        });
        await compare(
          {
            id: '10',
            scenario: `GET /api/courses?limit=12 on PGlite (${size.courses.toLocaleString('en-US')} courses), not shared`,
            baselineName: 'same on PostgreSQL',
            kind: 'throughput',
          },
          measureHttp('pglite list12', catalog(pglite.url, '/api/courses?limit=12')),
          uncached12,
        );
      } catch (err) {
        record(
          { id: '10', scenario: 'GET /api/courses?limit=12 on PGlite', baselineName: 'same on PostgreSQL', kind: 'throughput' },
          null,
          null,
          {
            status: 'error',
            note: (err as Error).message,
          },
        );
      }
    }
  } finally {
    stopChild(lms);
    stopChild(lmsUncached);
    stopChild(gateway);
    stopChild(pglite);
    await filled.handle.close();
    await rm(tmp, { recursive: true, force: true });
  }

  const loadEnd = os.loadavg();
  const machine = {
    nproc: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    node: process.version,
    loadavgStart: loadStart.map((l) => Number(l.toFixed(2))),
    loadavgEnd: loadEnd.map((l) => Number(l.toFixed(2))),
  };
  const table = formatTable(rows);
  const header =
    `${quick ? 'Quick run' : 'Full run'} ${startedAt.toISOString()}: ${size.courses.toLocaleString('en-US')} courses, ` +
    `${size.students.toLocaleString('en-US')} students, ${size.enrollments.toLocaleString('en-US')} enrollments, ` +
    `${size.completions.toLocaleString('en-US')} completions (database ${dbName}, ${filled.reused ? 'reused' : 'filled this run'})\n` +
    `Machine: ${machine.nproc} CPUs (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node}; ` +
    `load average ${machine.loadavgStart.join(' ')} at start, ${machine.loadavgEnd.join(' ')} at end (shared machine)\n` +
    `Warm-up ${plan.warmupSeconds} s, then ${plan.repetitions} x ${plan.seconds} s per scenario, median; autocannon, no pipelining. ` +
    `Rows 3s, 4, 6q, 6p, 2q, 3q, 4q, 11q, 12q, 9a and 9f measure their route and baseline in alternation (A B, B A, A B): the machine's drift stays out of their ratios.`;
  process.stdout.write(`\n${header}\n\n${table}\n`);

  const resultsDir = path.join(benchDir, 'results');
  await mkdir(resultsDir, { recursive: true });
  const file = path.join(
    resultsDir,
    `${startedAt
      .toISOString()
      .replaceAll(':', '-')
      .replace(/\.\d+Z$/, 'Z')}${quick ? '-quick' : ''}.json`,
  );
  await writeFile(
    file,
    `${JSON.stringify(
      {
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        quick,
        sizes: size,
        database: { name: dbName, reused: filled.reused, fillSeconds: filled.fillMs / 1000 },
        machine,
        plan: { ...plan, connections: CONNECTIONS },
        loadavgAfterScenario: loads,
        sqlShapes,
        rows,
        table,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`\nwritten to ${path.relative(process.cwd(), file)}\n`);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench could not run: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
