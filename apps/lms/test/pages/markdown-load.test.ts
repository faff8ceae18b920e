import { Worker } from 'node:worker_threads';
import { sql } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { enroll, makeCourse, makeCourseTree } from '../helpers/catalog-fixtures.js';
import { makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { HOSTILE_MARKDOWN } from '../helpers/hostile-markdown.js';
import { scrape } from '../helpers/metrics.js';
import { OWN_ORIGIN } from './studio/helpers.js';

// The Markdown attack as load, on a real server (port 0): while an author previews unsaved
// 100,000-character hostile texts (each new, so none comes from the cache), two at a time, and a
// learner and the course's teacher keep opening chapters that hold the others (ten a second), all
// from a thread of their own, the health check keeps answering within 1 s. Before
// the renderer (lib/markdown/renderer.ts) each such text held the event loop 0.5-3 s, so /healthz
// waited behind them.

const ATTACK_MS = 5_000;

/**
 * The attackers' thread: two lanes previewing hostile texts made new each time (so none comes
 * from the cache), back to back, and two readers opening chapters ten times a second, until told
 * to stop; then the statuses they got.
 */
const ATTACKERS = `
const { parentPort, workerData: w } = require('node:worker_threads');
let attacking = true;
let previewsSent = 0;
const statuses = {};
const count = (status) => { statuses[status] = (statuses[status] ?? 0) + 1; };
parentPort.once('message', () => { attacking = false; });
const previewer = async (lane) => {
  while (attacking) {
    const text = w.texts[previewsSent % w.texts.length];
    const content = text.slice(0, -12) + lane + '-' + String(previewsSent++).padStart(8, '0');
    const res = await fetch(w.address + w.previewUrl, {
      method: 'POST',
      headers: { cookie: w.authorCookie, origin: w.origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ name: 'Bab', content, action: 'preview' }).toString(),
    });
    count(res.status);
    await res.arrayBuffer();
  }
};
const reader = async ({ cookie, paths }) => {
  for (let i = 0; attacking; i++) {
    const res = await fetch(w.address + paths[i % paths.length], { headers: { cookie } });
    count(res.status);
    await res.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};
Promise.all([previewer(0), previewer(1), ...w.readers.map(reader)]).then(() => parentPort.postMessage({ statuses, previewsSent }));
`;
const HEALTH_BOUND_MS = 1_000;

t.test('the health check answers within 1 s while hostile chapters are viewed and previewed', async (t) => {
  const { app, db } = await buildTestApp(t);
  const institutionId = await makeInstitution(db.db);
  const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
  const course = await makeCourse(db.db, { teacherId: teacher.id, institutionId });
  const texts = Object.values(HOSTILE_MARKDOWN);
  const tree = await makeCourseTree(db.db, course.id, [texts.length]);
  const chapters = tree.modules[0]!.chapters;
  // Each chapter holds one hostile text: the learner reads the first (the others are locked), the
  // course's teacher reads them all (a manager reads every chapter).
  for (const [i, ch] of chapters.entries()) await db.db.execute(sql`update chapters set content = ${texts[i]} where id = ${ch.id}`);
  const learner = await makeUser(db.db, { role: 'student' });
  await enroll(db.db, learner.id, course.id);
  const learnerCookie = await sessionCookieFor(app, learner.id);
  const authorCookie = await sessionCookieFor(app, teacher.id);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const metrics = await app.metrics.listen({ host: '127.0.0.1', port: 0 });
  // Before the attack, as on a server that has been up a while: each route answered once (a
  // route's first answer compiles its serializers) and the Markdown worker started (the server
  // starts it at boot; here it compiles TypeScript first), on a chapter of another course.
  const other = await makeCourse(db.db, { teacherId: teacher.id, institutionId });
  const small = (await makeCourseTree(db.db, other.id, [1])).modules[0]!.chapters[0]!;
  await enroll(db.db, learner.id, other.id);
  for (const cookie of [learnerCookie, authorCookie]) {
    const warm = await fetch(`${address}/learn/chapters/${small.id}`, { headers: { cookie } });
    t.equal(warm.status, 200, 'a small chapter before the attack');
    await warm.arrayBuffer();
  }
  const warmPreview = await fetch(`${address}/dashboard/studio/chapters/${small.id}`, {
    method: 'POST',
    headers: { cookie: authorCookie, origin: OWN_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      name: 'Bab',
      content: `Pratinjau *biasa*. ${'Kalimat biasa. '.repeat(400)}`,
      action: 'preview',
    }).toString(),
  });
  t.equal(warmPreview.status, 200, 'a plain 6,000-character preview before the attack');
  await warmPreview.arrayBuffer();

  // The attackers run on a thread of their own, as clients elsewhere would: only the server's
  // work is on this event loop.
  const attackers = new Worker(ATTACKERS, {
    eval: true,
    workerData: {
      address,
      origin: OWN_ORIGIN,
      texts,
      previewUrl: `/dashboard/studio/chapters/${chapters[0]!.id}`,
      readers: [
        { cookie: learnerCookie, paths: [`/learn/chapters/${chapters[0]!.id}`] },
        { cookie: authorCookie, paths: chapters.map((c) => `/learn/chapters/${c.id}`) },
      ],
      authorCookie,
    },
  });
  const attacked = new Promise<{ statuses: Record<string, number>; previewsSent: number }>((resolve, reject) => {
    attackers.once('message', resolve);
    attackers.once('error', reject);
  });

  const healthTimes: number[] = [];
  const probe = async () => {
    const end = Date.now() + ATTACK_MS;
    while (Date.now() < end) {
      const started = performance.now();
      const res = await fetch(`${address}/healthz`, { signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      t.equal(res.status, 200);
      healthTimes.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  // Let the attack fill the renderer's queue before the first probe.
  await new Promise((resolve) => setTimeout(resolve, 300));
  await probe();
  attackers.postMessage('stop');
  const { statuses, previewsSent } = await attacked;
  await attackers.terminate();

  const slowest = Math.max(...healthTimes);
  t.ok(healthTimes.length >= 10, `${healthTimes.length} health checks during the attack (one every 100 ms after the last answer)`);
  t.ok(slowest < HEALTH_BOUND_MS, `the slowest health check took ${slowest.toFixed(0)} ms`);
  t.ok(previewsSent >= 2, `${previewsSent} hostile previews sent`);
  const rendered = (await scrape(metrics.url)).value('lms_markdown_renders_total');
  t.ok(rendered >= 4, `${rendered} texts rendered during the test`);
  for (const [status, n] of Object.entries(statuses))
    t.ok(status === '200' || status === '503', `answers ${status} (${n}), never another error`);
});
