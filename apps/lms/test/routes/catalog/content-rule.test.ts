import t from 'tap';
import { courses } from '@lms/db';
import { eq } from 'drizzle-orm';
import { findAnswerKeys } from '../../helpers/answer-keys.js';
import { buildTestApp } from '../../helpers/app.js';
import { attemptQuiz, completeChapter, enroll, makeCourse, makeCourseTree } from '../../helpers/catalog-fixtures.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../../helpers/fixtures.js';

// Who reads a course's content (rules/content-access.ts), attacked the way it was found: a paid
// course's chapter text and quiz questions came whole to members who had not bought it, to every
// API key and to other institutions' staff, and the list carried the final exam's questions.

const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
const home = await makeInstitution(db, 'Home');
const elsewhere = await makeInstitution(db, 'Elsewhere');
const owner = await makeUser(db, { role: 'teacher', institutionId: home });
const colleague = await makeUser(db, { role: 'teacher', institutionId: home });
const homeAdmin = await makeUser(db, { role: 'admin', institutionId: home });
const foreignAdmin = await makeUser(db, { role: 'admin', institutionId: elsewhere });
const foreignTeacher = await makeUser(db, { role: 'teacher', institutionId: elsewhere });
const superAdmin = await makeUser(db, { role: 'super_admin' });
const learner = await makeUser(db, { role: 'student' });
const member = await makeUser(db, { role: 'student' });

const paid = await makeCourse(db, { institutionId: home, teacherId: owner.id, name: 'Paid course', isPurchasable: true, price: '350000' });
// Two modules of two chapters; every chapter and module has a quiz with one question, and a final exam.
const tree = await makeCourseTree(db, paid.id, [2, 2]);
const [m1, m2] = tree.modules;
const [c1, c2] = m1!.chapters;
const [c3, c4] = m2!.chapters;
await enroll(db, learner.id, paid.id);

const cookie = async (id: string) => ({ cookie: await sessionCookieFor(app, id) });
const as = {
  ownerKey: { 'x-api-key': await apiKeyFor(db, owner.id) },
  colleagueKey: { 'x-api-key': await apiKeyFor(db, colleague.id) },
  member: await cookie(member.id),
  colleague: await cookie(colleague.id),
  foreignAdmin: await cookie(foreignAdmin.id),
  foreignTeacher: await cookie(foreignTeacher.id),
  learner: await cookie(learner.id),
  owner: await cookie(owner.id),
  homeAdmin: await cookie(homeAdmin.id),
  superAdmin: await cookie(superAdmin.id),
};
type Caller = keyof typeof as;

interface Quiz {
  id: number;
  questions: unknown[];
}
interface Detail {
  modules: { id: number; chapters: { id: number; content: string; quizzes: Quiz[] }[] }[];
  moduleQuizzes: Quiz[];
}
async function detail(who: Caller): Promise<Detail> {
  const res = await app.inject({ url: `/api/courses/${paid.id}`, headers: as[who] });
  t.equal(res.statusCode, 200, `${who}: the detail`);
  return res.json().course;
}
const contentOf = (d: Detail) => Object.fromEntries(d.modules.flatMap((m) => m.chapters.map((c) => [c.id, c.content])));
const chapterQuestionsOf = (d: Detail) =>
  Object.fromEntries(d.modules.flatMap((m) => m.chapters.map((c) => [c.id, c.quizzes.reduce((n, q) => n + q.questions.length, 0)])));
const moduleQuestionsOf = (d: Detail) => d.moduleQuizzes.map((q) => q.questions.length);

const outsiders: Caller[] = ['ownerKey', 'colleagueKey', 'member', 'colleague', 'foreignAdmin', 'foreignTeacher'];

t.test('outsiders read the outline: titles and order, no chapter text, no question, the same types', async (t) => {
  for (const who of outsiders) {
    const d = await detail(who);
    t.same(
      d.modules.map((m) => m.chapters.map((c) => c.id)),
      [
        [c1!.id, c2!.id],
        [c3!.id, c4!.id],
      ],
      `${who}: the outline is whole`,
    );
    t.same(Object.values(contentOf(d)), ['', '', '', ''], `${who}: no chapter's text`);
    t.same(Object.values(chapterQuestionsOf(d)), [0, 0, 0, 0], `${who}: no chapter quiz question`);
    t.same(moduleQuestionsOf(d), [0, 0], `${who}: no module quiz question`);
    const raw = JSON.stringify(d);
    t.notMatch(raw, /Content of chapter|Question \d+\?/, `${who}: not a word of it anywhere`);
  }
});

t.test('the list carries no final exam question for outsiders and learners', async (t) => {
  for (const who of [...outsiders, 'learner'] as Caller[]) {
    const res = await app.inject({ url: `/api/courses?courseId=${paid.id}`, headers: as[who] });
    const [course] = res.json().courses;
    if (!course) {
      t.ok(['colleague', 'foreignTeacher'].includes(who), `${who}: a teacher lists their own courses only`);
      continue;
    }
    t.equal(course.finalExam.id, String(tree.finalQuizId), `${who}: the final exam is named`);
    t.same(course.finalExam.questions, [], `${who}: without its questions`);
  }
  for (const who of ['owner', 'homeAdmin', 'superAdmin'] as Caller[]) {
    const [course] = (await app.inject({ url: `/api/courses?courseId=${paid.id}`, headers: as[who] })).json().courses;
    t.equal(course.finalExam.questions.length, 1, `${who}: manages the course, reads its final exam`);
    t.same(findAnswerKeys(course), [], `${who}: never with a key in the list`);
  }
});

t.test('a learner reads what the unlock rule opens, as the learning routes do', async (t) => {
  const reads = async () => {
    const d = await detail('learner');
    const opened: Record<number, boolean> = {};
    for (const c of [c1!, c2!, c3!, c4!]) {
      opened[c.id] = (await app.inject({ url: `/api/learning/chapters/${c.id}`, headers: as.learner })).statusCode === 200;
    }
    return { d, opened };
  };
  let { d, opened } = await reads();
  t.same(opened, { [c1!.id]: true, [c2!.id]: false, [c3!.id]: false, [c4!.id]: false }, 'only the first chapter is open');
  t.same(contentOf(d), { [c1!.id]: c1!.content, [c2!.id]: '', [c3!.id]: '', [c4!.id]: '' }, "the first chapter's text only");
  t.same(chapterQuestionsOf(d), { [c1!.id]: 1, [c2!.id]: 0, [c3!.id]: 0, [c4!.id]: 0 }, "the first chapter's quiz only");
  t.same(moduleQuestionsOf(d), [1, 0], 'the first module quiz (its module is open), not the second');
  t.same(findAnswerKeys(d), [], 'never a key');

  // Through the first module: its chapters done, their quizzes and the module quiz passed.
  for (const c of [c1!, c2!]) {
    await completeChapter(db, learner.id, c);
    await attemptQuiz(db, learner.id, d.modules[0]!.chapters.find((x) => x.id === c.id)!.quizzes[0]!.id, 100, true);
  }
  await attemptQuiz(db, learner.id, d.moduleQuizzes[0]!.id, 100, true);
  ({ d, opened } = await reads());
  t.same(opened, { [c1!.id]: true, [c2!.id]: true, [c3!.id]: true, [c4!.id]: false }, 'the next module opens, its first chapter');
  t.same(contentOf(d), { [c1!.id]: c1!.content, [c2!.id]: c2!.content, [c3!.id]: c3!.content, [c4!.id]: '' });
  t.same(moduleQuestionsOf(d), [1, 1], 'the second module quiz too');
});

t.test("the course's managers read everything; answer keys only for the owner and a super_admin", async (t) => {
  for (const who of ['owner', 'homeAdmin', 'superAdmin'] as Caller[]) {
    const d = await detail(who);
    t.same(Object.values(contentOf(d)), [c1!.content, c2!.content, c3!.content, c4!.content], `${who}: every chapter's text`);
    t.same(Object.values(chapterQuestionsOf(d)), [1, 1, 1, 1], `${who}: every chapter quiz`);
    t.same(moduleQuestionsOf(d), [1, 1], `${who}: every module quiz`);
    t.equal(findAnswerKeys(d).length > 0, who !== 'homeAdmin', `${who}: answer keys ${who === 'homeAdmin' ? 'withheld' : 'given'}`);
  }
});

t.test('preview mode: the first chapter in course order, to everyone who may see the course; never a question', async (t) => {
  await db.update(courses).set({ previewMode: true }).where(eq(courses.id, paid.id));
  t.teardown(() => db.update(courses).set({ previewMode: false }).where(eq(courses.id, paid.id)));
  for (const who of outsiders) {
    const d = await detail(who);
    t.same(contentOf(d), { [c1!.id]: c1!.content, [c2!.id]: '', [c3!.id]: '', [c4!.id]: '' }, `${who}: the preview chapter`);
    t.same(Object.values(chapterQuestionsOf(d)), [0, 0, 0, 0], `${who}: no question with it`);
  }
});

t.test('the same rule on a course that is not buyer-visible: only its owner and a super_admin see it at all', async (t) => {
  const draft = await makeCourse(db, { institutionId: home, teacherId: owner.id, isPublished: false });
  await makeCourseTree(db, draft.id, [1]);
  for (const who of [...outsiders, 'learner', 'homeAdmin'] as Caller[]) {
    const res = await app.inject({ url: `/api/courses/${draft.id}`, headers: as[who] });
    t.equal(res.statusCode, 404, `${who}: 404, as the API specification says`);
  }
  const mine = await app.inject({ url: `/api/courses/${draft.id}`, headers: as.owner });
  t.notMatch(mine.json().course.modules[0].chapters[0].content, /^$/, 'the owner reads their draft');
});
