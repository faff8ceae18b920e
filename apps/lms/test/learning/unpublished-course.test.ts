import { courses } from '@lms/db';
import { eq } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { bySession } from '../helpers/authoring.js';
import { apiKeyFor, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { as, learningWorld } from './world.js';

// An enrolled learner keeps the course page of a course unpublished after they enrolled (issue
// 40, finding 9): /dashboard linked /dashboard/courses/:id, which answered 404, and so did "Back
// to course" from a chapter. Now the page opens for those enrolled, saying the course is no longer
// offered; everyone else still gets the 404 page, and the catalog API still leaves it out.

const w = await learningWorld(t);
const [ch1] = w.chapterList;
const author = await bySession(w.app, w.teacher.id);
const stranger = await w.newLearner(false);
const coursePath = `/dashboard/courses/${w.course.id}`;

const get = (cookie: string, url: string, lang = 'en') => w.app.inject({ url, headers: { cookie, 'accept-language': lang } });

/** The links a page offers to the course page, followed: each answers 200. */
async function courseLinksWork(t: Test, cookie: string, url: string) {
  const res = await get(cookie, url);
  t.equal(res.statusCode, 200, `${url} opens`);
  t.match(res.body, `href="${coursePath}"`, `${url} links the course page`);
  return res;
}

t.test('unpublished after the learner enrolled: the learner keeps the course page', async (t) => {
  t.equal((await as(w.app, w.learner.cookie).post(`/api/learning/chapters/${ch1!.id}/completion`)).statusCode, 201);
  t.equal((await author('DELETE', `/api/courses/${w.course.id}/publication`)).status, 200, 'the teacher unpublishes it');

  await courseLinksWork(t, w.learner.cookie, '/dashboard');
  const chapter = await courseLinksWork(t, w.learner.cookie, `/learn/chapters/${ch1!.id}`);
  t.match(chapter.body, `<a href="${coursePath}">`, 'the chapter page offers the way back');

  for (const [lang, words] of [
    ['en', 'This course is no longer offered. You keep it'],
    ['id', 'Kursus ini tidak lagi ditawarkan. Anda tetap dapat mempelajarinya'],
  ] as const) {
    const page = await get(w.learner.cookie, coursePath, lang);
    t.equal(page.statusCode, 200, `${lang}: the course page opens`);
    t.match(page.body, words, `${lang}: it says the course is no longer offered`);
    t.match(page.body, `href="/learn/chapters/${ch1!.id}"`, `${lang}: the learner's chapters are links`);
    t.match(page.body, /<progress[^>]*value="33\.33"|33[.,]33/, `${lang}: with the learner's progress`);
  }
});

t.test('attackers: nobody else gets the unpublished course page', async (t) => {
  for (const [who, cookie] of [
    ['a member enrolled nowhere', stranger.cookie],
    ['a member of another course', (await w.newLearner(false)).cookie],
    ["another institution's teacher", await sessionCookieFor(w.app, (await makeUser(w.db, { role: 'teacher' })).id)],
  ] as const) {
    const res = await get(cookie, coursePath);
    t.equal(res.statusCode, 404, `${who}: 404`);
    t.notMatch(res.body, w.course.name, `${who}: not its name either`);
  }
  const key = await apiKeyFor(w.db, w.learner.user.id);
  const list = await w.app.inject({ url: `/api/courses?courseId=${w.course.id}`, headers: { 'x-api-key': key } });
  t.equal(list.json().courses.length, 0, 'the catalog API still leaves it out (the learner’s own key included)');
  const session = await w.app.inject({ url: `/api/courses?courseId=${w.course.id}`, headers: { cookie: w.learner.cookie } });
  t.equal(session.json().courses.length, 0, "and the learner's session list: the API's answer does not change");
});

t.test('published again: no notice', async (t) => {
  // (The fixture's course lacks what the publish checklist asks; the flag is what matters here.)
  await w.db.update(courses).set({ isPublished: true }).where(eq(courses.id, w.course.id));
  const page = await get(w.learner.cookie, coursePath);
  t.equal(page.statusCode, 200);
  t.notMatch(page.body, 'no longer offered');
});
