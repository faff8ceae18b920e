import { BundleListResponse, CourseDetailResponse, CourseDetailWithAnswersResponse, CourseListResponse } from '@lms/contracts';
import { users } from '@lms/db';
import { seedDemo } from '@lms/db/seed';
import { eq, sql } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { findAnswerKeys } from '../../helpers/answer-keys.js';
import { compileSerializer } from '../../../src/lib/serializers.js';
import { buildTestApp } from '../../helpers/app.js';
import { apiKeyFor, sessionCookieFor } from '../../helpers/fixtures.js';

// The catalog's answers on the demo data, pinned: the read path (queries, read model,
// serializers) may change how an answer is made, never what it says. Course details, list pages
// (with and without search and filters) and the bundles, for each kind of caller. A change
// that is meant must update the snapshot (TAP_SNAPSHOT=1) and say why in its commit.

const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
await seedDemo(db, { now: new Date('2026-03-01T08:00:00Z') });

const idOf = async (email: string) => (await db.select({ id: users.id }).from(users).where(eq(users.email, email)))[0]!.id;
const teacher = await idOf('teacher@demo.lms');
// A student with progress, so the learner fields are filled in (chosen by e-mail: ids are random).
const [learner] = (
  await db.execute<{ user_id: string }>(
    sql`select e.user_id from enrollments e join users u on u.id = e.user_id group by e.user_id, u.email order by count(*) desc, u.email limit 1`,
  )
).rows;

// Who each caller is, for the content rule (rules/content-access.ts): the people who manage a
// course (its owner, an admin of its institution, a super_admin) read its whole content; a learner
// the chapters the learning routes open to them; everyone else the outline and the preview chapter.
const adminId = await idOf('admin@demo.lms');
const [{ institution_id: adminInstitution }] = (
  await db.execute<{ institution_id: number }>(sql`select institution_id from users where id = ${adminId}`)
).rows as [{ institution_id: number }];
const callerIds: Record<string, string | null> = {
  apiKey: null,
  teacher,
  otherTeacher: await idOf('teacher2@demo.lms'),
  admin: adminId,
  superAdmin: await idOf('superadmin@demo.lms'),
  student: learner!.user_id,
};
const manages = (who: string, course: { teacherId: string; institutionId: number }) =>
  who !== 'apiKey' &&
  (who === 'superAdmin' || (who === 'admin' && course.institutionId === Number(adminInstitution)) || course.teacherId === callerIds[who]);

const callers: Record<string, Record<string, string>> = {
  apiKey: { 'x-api-key': await apiKeyFor(db, teacher) },
  teacher: { cookie: await sessionCookieFor(app, teacher) },
  otherTeacher: { cookie: await sessionCookieFor(app, await idOf('teacher2@demo.lms')) },
  admin: { cookie: await sessionCookieFor(app, await idOf('admin@demo.lms')) },
  superAdmin: { cookie: await sessionCookieFor(app, await idOf('superadmin@demo.lms')) },
  student: { cookie: await sessionCookieFor(app, learner!.user_id) },
};

// Generated values are replaced, so the snapshot is the same on every database and run: user ids
// (random UUIDs) are named by their first appearance, and the rows' createdAt/updatedAt (the
// database's clock) by their form.
function stable(value: unknown): unknown {
  const names = new Map<string, string>();
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'string' && uuid.test(v)) {
      if (!names.has(v)) names.set(v, `<uuid ${names.size + 1}>`);
      return names.get(v);
    }
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [
        k,
        (k === 'createdAt' || k === 'updatedAt') && typeof x === 'string' && !Number.isNaN(Date.parse(x)) ? '<time>' : walk(x),
      ]),
    );
  };
  return walk(value);
}

const lists = [
  '/api/courses?limit=12',
  '/api/courses?page=2&limit=5',
  '/api/courses?search=pajak',
  '/api/courses?categoryId=1&sortBy=students',
  '/api/recommended-courses',
  '/api/recommended-courses?public=true',
];

// Every fourth course, and every course not buyer-visible (drafts, no event code): their
// answers differ most between callers.
const ids = (
  await db.execute<{ id: number }>(
    sql`select id from courses where id % 4 = 1 or not (is_published and event_code is not null) order by id`,
  )
).rows.map((r) => Number(r.id));
t.ok(ids.length > 5, 'the demo catalog is seeded');

// Lists, bundles and details are written item by item (compileItemwiseSerializer): the text must
// be what the whole-answer serializer of the same contract writes, byte for byte.
const wholeAnswer = {
  list: compileSerializer(CourseListResponse),
  bundles: compileSerializer(BundleListResponse),
  detail: compileSerializer(CourseDetailResponse),
  detailWithAnswers: compileSerializer(CourseDetailWithAnswersResponse),
};

for (const [who, headers] of Object.entries(callers)) {
  t.test(`${who}: lists and bundles`, async (t) => {
    for (const url of lists) {
      const res = await app.inject({ url, headers });
      t.equal(res.statusCode, 200, url);
      // The final exam's questions: only for the course's managers, in every list.
      for (const c of url.startsWith('/api/courses') ? res.json().courses : []) {
        const detail = await app.inject({ url: `/api/courses/${c.id}`, headers: callers.superAdmin! });
        if (!manages(who, detail.json().course)) t.same(c.finalExam.questions, [], `${url}: no final exam question of ${c.id} for ${who}`);
      }
      t.matchSnapshot(stable(res.json()), url);
      t.equal(
        res.body,
        wholeAnswer[url.startsWith('/api/courses') ? 'list' : 'bundles'](res.json()),
        `${url}: the whole-answer serializer's text`,
      );
    }
  });
  t.test(`${who}: course details`, async (t) => {
    for (const id of ids) {
      const res = await app.inject({ url: `/api/courses/${id}`, headers });
      const body = res.json();
      t.matchSnapshot({ status: res.statusCode, body: stable(body) }, `course ${id}`);
      if (res.statusCode === 200) await assertContentRule(t, who, headers, body.course);
      if (res.statusCode === 200) {
        const serialize = findAnswerKeys(body).length > 0 ? wholeAnswer.detailWithAnswers : wholeAnswer.detail;
        t.equal(res.body, serialize(body), `course ${id}: the whole-answer serializer's text`);
      }
      // Only a teacher (the owner) or a super_admin by session gets answer keys, at any depth.
      if (res.statusCode === 200 && findAnswerKeys(body).length > 0)
        t.ok(['teacher', 'otherTeacher', 'superAdmin'].includes(who), `keys for ${who} on ${id}`);
    }
  });
}

// The authoring answers, walked for every caller (and an admin of another institution): the
// course document, the checklist, the history, and a quiz write (the final exam put back as it
// is, so nothing changes). Answer keys reach only those who may author the course: its owner
// teacher, an admin of its institution, a super_admin. Everyone else is refused, and the refusal
// carries no answer key.
const [otherInstitution] = (await db.execute<{ id: number }>(sql`insert into institutions (name) values ('Lain') returning id`)).rows;
const [otherAdmin] = (
  await db.execute<{ id: string }>(
    sql`insert into users (email, name, role, institution_id) values ('admin@lain.test', 'Admin Lain', 'admin', ${otherInstitution!.id}) returning id`,
  )
).rows;
const authoringCallers: Record<string, Record<string, string>> = {
  ...callers,
  otherAdmin: { cookie: await sessionCookieFor(app, otherAdmin!.id) },
};
const owners = new Map(
  (await db.execute<{ id: number; teacher_id: string }>(sql`select id, teacher_id from courses`)).rows.map((r) => [
    Number(r.id),
    r.teacher_id,
  ]),
);
const staff = {
  teacher,
  otherTeacher: await idOf('teacher2@demo.lms'),
};
for (const [who, headers] of Object.entries(authoringCallers)) {
  t.test(`${who}: authoring answers`, async (t) => {
    for (const id of ids) {
      const mayAuthor =
        ['admin', 'superAdmin'].includes(who) || ((who === 'teacher' || who === 'otherTeacher') && owners.get(id) === staff[who]);
      const exported = await app.inject({ url: `/api/courses/${id}/document`, headers });
      const reads = [
        exported,
        ...(await Promise.all(['publication', 'history'].map((path) => app.inject({ url: `/api/courses/${id}/${path}`, headers })))),
      ];
      const finalExam = mayAuthor ? exported.json().document.finalExam : null;
      const write = await app.inject({
        method: 'PUT',
        url: `/api/courses/${id}/final-exam`,
        headers: { ...headers, 'content-type': 'application/json', 'x-requested-with': 'walk' },
        payload: finalExam ? { ...finalExam, id: undefined } : { name: 'x', questions: [] },
      });
      for (const res of [...reads, write]) {
        const keys = findAnswerKeys(res.json());
        if (mayAuthor) {
          t.equal(res.statusCode, 200, `${who} on ${id}: ${res.body.slice(0, 200)}`);
        } else {
          t.ok([403, 404].includes(res.statusCode), `${who} on ${id}: refused (${res.statusCode})`);
          t.same(keys, [], `${who} on ${id}: no answer key in the refusal`);
        }
      }
      if (mayAuthor && finalExam) {
        t.ok(findAnswerKeys(exported.json()).length > 0, `${who} on ${id}: the document has its keys`);
        t.ok(findAnswerKeys(write.json()).length > 0, `${who} on ${id}: the written quiz comes back with its keys`);
      }
    }
  });
}

interface DetailQuiz {
  questions: unknown[];
}
interface DetailChapter {
  id: number;
  content: string;
  quizzes: DetailQuiz[];
}
interface Detail {
  id: number;
  teacherId: string;
  institutionId: number;
  previewMode: boolean;
  modules: { id: number; chapters: DetailChapter[] }[];
  moduleQuizzes: DetailQuiz[];
}

/**
 * The content rule on one detail answer: a caller who does not manage the course reads a chapter's
 * text only where the learning routes open that chapter to them (or it is the preview chapter of
 * a course in preview mode), and a quiz's questions only where the catalog shows that part
 * unlocked to them; the fields keep their types.
 */
async function assertContentRule(t: Test, who: string, headers: Record<string, string>, course: Detail) {
  if (manages(who, course)) return;
  const chapters = course.modules.flatMap((m) => m.chapters);
  const preview = course.previewMode ? chapters[0]?.id : undefined;
  // The detail's module quizzes do not name their module: count them against the modules the
  // catalog shows unlocked, with a module quiz, to this caller.
  const [summary] = (await app.inject({ url: `/api/courses?courseId=${course.id}`, headers })).json().courses;
  const openModuleQuizzes = (summary?.modules ?? []).filter(
    (m: { isUnlocked: boolean; moduleQuiz: unknown }) => m.isUnlocked && m.moduleQuiz,
  ).length;
  for (const m of course.modules) {
    for (const ch of m.chapters) {
      t.type(ch.content, 'string');
      const opened = who === 'apiKey' ? false : (await app.inject({ url: `/api/learning/chapters/${ch.id}`, headers })).statusCode === 200;
      t.equal(ch.content !== '', opened || ch.id === preview, `${who}, course ${course.id}, chapter ${ch.id}: text only where it is open`);
      for (const quiz of ch.quizzes)
        t.ok(quiz.questions.length === 0 || opened, `${who}: questions of chapter ${ch.id}'s quiz only where open`);
    }
  }
  const withQuestions = course.moduleQuizzes.filter((quiz) => quiz.questions.length > 0).length;
  t.ok(
    withQuestions === 0 || (who === 'student' && withQuestions <= openModuleQuizzes),
    `${who}: module quiz questions only where unlocked`,
  );
}
