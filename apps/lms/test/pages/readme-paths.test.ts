import { certificates, users } from '@lms/db';
import { seedDemo } from '@lms/db/seed';
import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { sessionCookieFor } from '../helpers/fixtures.js';

// Every page the README sends a newcomer to answers, for the person it is meant for: each
// `/dashboard…`, `/learn…` and `/certificates…` path named there (placeholders filled with the demo
// data's ids) opens (2xx or 3xx) for at least one of the demo's people. A path nobody can open
// (the README once sent teachers to `/dashboard/studio`, a 404) fails here. The routes named by
// method across the docs are held to the registered routes by e2e/test/docs.test.ts.

const README = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
const named = [...new Set([...README.matchAll(/`((?:\/dashboard|\/learn|\/certificates)(?:\/[^`\s]*)?)`/g)].map((m) => m[1] as string))];

const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
await seedDemo(db, { now: new Date('2026-03-01T08:00:00Z') });

const idOf = async (email: string) => (await db.select({ id: users.id }).from(users).where(eq(users.email, email)))[0]!.id;
const [held] = await db
  .select({ userId: certificates.userId, courseId: certificates.courseId, code: certificates.code })
  .from(certificates)
  .limit(1);
if (!held) throw new Error('the demo data has no certificate');
const people: [string, string][] = [
  ['teacher', await sessionCookieFor(app, await idOf('teacher@demo.lms'))],
  ['admin', await sessionCookieFor(app, await idOf('admin@demo.lms'))],
  ['super_admin', await sessionCookieFor(app, await idOf('superadmin@demo.lms'))],
  ['learner', await sessionCookieFor(app, held.userId)],
];

/** The path with its placeholders (`{id}`, `<id>`, `:id`, `<courseId>`, `<userId>`, `<code>`) filled in. */
function filled(path: string): string {
  return path
    .replace(/[{<]userId[}>]|:userId/g, held!.userId)
    .replace(/[{<]code[}>]|:code/g, held!.code)
    .replace(/[{<](?:id|courseId)[}>]|:(?:id|courseId)\b/g, String(held!.courseId));
}

t.test('the README names its pages', async (t) => {
  t.ok(named.length >= 10, `${named.length} paths: ${named.join(', ')}`);
  t.ok(named.includes('/dashboard/institution'), 'the institution settings page among them');
});

t.test('every page the README names opens for someone it is meant for', async (t) => {
  for (const path of named) {
    const url = filled(path);
    t.notMatch(url, /[{}<>]|\/:/, `${path}: every placeholder filled`);
    const answers: string[] = [];
    for (const [who, cookie] of people) {
      const res = await app.inject({ method: 'GET', url, headers: { cookie } });
      answers.push(`${who} ${res.statusCode}`);
      t.ok(res.statusCode < 500, `${path} as ${who}: no 5xx (${res.statusCode})`);
    }
    t.ok(
      answers.some((a) => /\s[23]\d\d$/.test(a)),
      `${path} opens for someone (${answers.join(', ')})`,
    );
  }
});
