import { courses } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { makeCourse, makeCourseTree } from '../helpers/catalog-fixtures.js';
import { sessionCookieFor } from '../helpers/fixtures.js';
import { learningWorld } from './world.js';

// The learner's pages attacked as the trust review found them open: a certificate id past the
// int4 range (a 500), a draft course's final exam opened by id, a form post too large for its
// route (a 404 page, not a 413).

const w = await learningWorld(t);
const ORIGIN = 'http://localhost:3000';
const page = (url: string, cookie = w.learner.cookie) => w.app.inject({ url, headers: { cookie, 'accept-language': 'en' } });

t.test('a certificate id past the int4 range is a 404 page, never a failed statement', async (t) => {
  for (const id of ['2147483648', '99999999999999999999', '0', '-1', 'abc']) {
    const res = await page(`/learn/certificates/${id}`);
    t.equal(res.statusCode, 404, `/learn/certificates/${id}`);
    t.match(res.headers['content-type'], /text\/html/);
  }
});

t.test("a member opens a draft course's quiz pages by id: 404, as if it did not exist", async (t) => {
  const draft = await makeCourse(w.db, { teacherId: w.teacher.id, institutionId: w.course.institutionId, isPublished: false });
  const tree = await makeCourseTree(w.db, draft.id, [1]);
  const stranger = await w.newLearner(false);
  for (const [who, cookie] of [
    ['an enrolled member of another course', w.learner.cookie],
    ['a member enrolled nowhere', stranger.cookie],
  ] as const) {
    const res = await page(`/learn/quizzes/${tree.finalQuizId}`, cookie);
    t.equal(res.statusCode, 404, `${who}: the final exam of a draft`);
    t.notMatch(res.body, 'Final exam', `${who}: not its name either`);
  }
  const own = await page(`/learn/quizzes/${tree.finalQuizId}`, await sessionCookieFor(w.app, w.teacher.id));
  t.equal(own.statusCode, 200, 'its teacher opens it');

  // A learner keeps a course that is unpublished after they enrolled.
  await w.db.update(courses).set({ isPublished: false }).where(eq(courses.id, w.course.id));
  t.teardown(() => w.db.update(courses).set({ isPublished: true }).where(eq(courses.id, w.course.id)));
  const quiz = await w.quizOfChapter(w.chapterList[0]!.id);
  t.equal((await page(`/learn/quizzes/${quiz.id}`)).statusCode, 200, 'the enrolled learner still opens its quiz page');
  t.equal((await page(`/learn/quizzes/${quiz.id}`, stranger.cookie)).statusCode, 404, 'a stranger does not');
});

t.test('a form post larger than its route takes: a 413 page on every page form, 413 on the language switch', async (t) => {
  await w.app.ready();
  // Over the largest form limit: the studio's editors take what the authoring API takes (a chapter's Markdown).
  const big = `x=${'a'.repeat(Math.max(300 * 1024, w.app.config.AUTHORING_BODY_LIMIT_BYTES + 1024))}`;
  const routes = [...w.app.csrfFormRoutes, { method: 'POST', url: '/language' }];
  t.ok(routes.length >= 8, `${routes.length} form routes`);
  // The studio refuses a member before reading a form (403, test/routes/authoring/bounded-bodies):
  // its forms are sent by their teacher, whose too-large form is the 413 page.
  const teacherCookie = await sessionCookieFor(w.app, w.teacher.id);
  for (const route of routes) {
    const cookie = route.url.startsWith('/dashboard/studio') ? teacherCookie : w.learner.cookie;
    const res = await w.app.inject({
      method: route.method as 'POST',
      url: route.url.replace(/:[A-Za-z]+/g, '1'),
      headers: { cookie, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
      payload: big,
    });
    t.equal(res.statusCode, 413, `${route.method} ${route.url}`);
    if (route.url !== '/language') t.match(res.body, 'Too much to send', `${route.url}: a page that says so`);
  }
});
