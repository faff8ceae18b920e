import { chapterCompletions, enrollments, quizAttemptGrants, quizzes, users } from '@lms/db';
import { and, eq } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { finishAllButFinal, learningWorld, takeQuiz } from './world.js';

// Issue 30 (part A): the learner's and the managers' paths without dead ends, through the pages
// as a browser uses them (app.inject, session cookies, same-origin form posts).

const w = await learningWorld(t);
const [ch1, ch2, ch3] = w.chapterList;
const ORIGIN = 'http://localhost:3000';
const institutionId = w.course.institutionId;
const otherInstitution = await makeInstitution(w.db, 'Other');
const people = {
  owner: w.teacher,
  admin: await makeUser(w.db, { role: 'admin', institutionId }),
  superAdmin: await makeUser(w.db, { role: 'super_admin' }),
  otherTeacher: await makeUser(w.db, { role: 'teacher', institutionId: otherInstitution }),
  otherAdmin: await makeUser(w.db, { role: 'admin', institutionId: otherInstitution }),
  sameInstitutionTeacher: await makeUser(w.db, { role: 'teacher', institutionId }),
};
const cookies = Object.fromEntries(
  await Promise.all(Object.entries(people).map(async ([k, u]) => [k, await sessionCookieFor(w.app, u.id, 86_400_000)] as const)),
) as Record<keyof typeof people, string>;

/** Answer-key text of the fixtures' questions. */
const KEYS = /Because a is right|Jawaban yang benar|Right answer|isCorrect|is_correct|An essay answer/;

function get(cookie: string | null, url: string, lang = 'id') {
  return w.app.inject({ url, headers: { ...(cookie ? { cookie } : {}), 'accept-language': lang } });
}
function form(cookie: string, url: string, fields: Record<string, string> = {}, origin: string | null = ORIGIN) {
  return w.app.inject({
    method: 'POST',
    url,
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...(origin ? { origin } : {}) },
    payload: new URLSearchParams(fields).toString(),
  });
}

/** The links a page offers (href attributes of our own paths, assets aside). */
function linksOf(body: string): string[] {
  const found = new Set<string>();
  for (const m of body.matchAll(/href="(\/[^"#]*)/g)) {
    const url = m[1]!.replace(/&amp;/g, '&');
    if (!url.startsWith('/dashboard/assets/')) found.add(url);
  }
  return [...found];
}

/** Every link the page offers answers 200, or 302 to a page that answers 200: never a 4xx/5xx page. */
async function followLinks(t: Test, cookie: string | null, body: string, lang: string, where: string) {
  const links = linksOf(body);
  t.ok(links.length > 0, `${where}: offers links`);
  for (const url of links) {
    let res = await get(cookie, url, lang);
    if (res.statusCode === 302) res = await get(cookie, res.headers.location as string, lang);
    t.equal(res.statusCode, 200, `${where} → ${url} (${lang})`);
  }
}

const learner = w.learner;

t.test('the learner sees where they are, what is open, what is locked and why; every offered link works', async (t) => {
  for (const lang of ['id', 'en']) {
    const course = await get(learner.cookie, `/dashboard/courses/${w.course.id}`, lang);
    t.equal(course.statusCode, 200);
    t.match(course.body, lang === 'id' ? 'Lanjutkan belajar' : 'Continue where you left off');
    t.match(course.body, `href="/learn/chapters/${ch1!.id}"`, 'continue: the first chapter');
    t.notMatch(course.body, `href="/learn/chapters/${ch2!.id}"`, 'a locked chapter is not a link');
    const module2Quiz = await w.quizOfModule(w.tree.modules[1]!.module.id);
    t.notMatch(course.body, `href="/learn/quizzes/${module2Quiz.id}"`, 'a quiz of a locked module is not a link');
    t.notMatch(course.body, `href="/learn/quizzes/${w.tree.finalQuizId}"`, 'nor the final exam');
    t.match(
      course.body,
      lang === 'id' ? `Terbuka setelah Anda menyelesaikan bab “${ch1!.name}”.` : `Opens once you complete the chapter “${ch1!.name}”.`,
    );
    await followLinks(t, learner.cookie, course.body, lang, 'course page');

    const chapter = await get(learner.cookie, `/learn/chapters/${ch1!.id}`, lang);
    t.equal(chapter.statusCode, 200);
    t.match(chapter.body, /<li {1,2}aria-current="step"><a href="\/learn\/chapters\/\d+">/, 'the current chapter is marked in the outline');
    t.match(chapter.body, 'class="outline"');
    t.match(chapter.body, /<a href="\/dashboard" aria-current="page">/, 'the nav highlights the dashboard, not the catalog');
    t.notMatch(chapter.body, /href="\/dashboard\/catalog" aria-current/);
    t.notMatch(chapter.body, `href="/learn/chapters/${ch2!.id}"`, 'the next chapter is not a link before its time');
    await followLinks(t, learner.cookie, chapter.body, lang, 'chapter page');
  }
  // The dashboard says where to continue.
  const dash = await get(learner.cookie, '/dashboard', 'en');
  t.match(dash.body, `Continue: ${ch1!.name}`);
  await followLinks(t, learner.cookie, dash.body, 'en', 'dashboard');
});

t.test('mark complete says what comes next; a passed quiz offers the way on and its review', async (t) => {
  const done = await form(learner.cookie, `/learn/chapters/${ch1!.id}/complete`);
  t.equal(done.statusCode, 303);
  const after = await get(learner.cookie, done.headers.location as string, 'en');
  t.match(after.body, 'This chapter is done.');
  const quiz = await w.quizOfChapter(ch1!.id);
  t.match(after.body, `<a href="/learn/quizzes/${quiz.id}">Take this chapter&#39;s quiz: ${quiz.name}</a>`, 'the next step is its quiz');
  t.notMatch(after.body, `href="/learn/chapters/${ch2!.id}"`, 'not yet the next chapter');
  t.match(after.body, `Opens once you pass ${quiz.name}.`, 'and the outline says what opens the next chapter');

  const intro = await get(learner.cookie, `/learn/quizzes/${quiz.id}`, 'en');
  t.match(intro.body, 'Attempts used: 0 of 3');
  const started = await form(learner.cookie, `/learn/quizzes/${quiz.id}/start`);
  const [question] = await w.questionsOf(quiz.id);
  await form(learner.cookie, `${started.headers.location}/submit`, { [`q${question!.id}`]: 'a' });
  const result = await get(learner.cookie, started.headers.location as string, 'en');
  t.match(result.body, 'Passed');
  t.match(result.body, `<a href="/learn/chapters/${ch2!.id}">Go to ${ch2!.name}</a>`, 'the way on');
  t.match(result.body, 'Because a is right', 'the explanation, once passed');
  t.match(result.body, 'Right answer: Right');
  await followLinks(t, learner.cookie, result.body, 'en', 'passed result');
  const introAfter = await get(learner.cookie, `/learn/quizzes/${quiz.id}`, 'en');
  t.match(introAfter.body, 'You have passed this quiz.');
  t.notMatch(introAfter.body, `/learn/quizzes/${quiz.id}/start`, 'no attempt to waste');
});

t.test('out of attempts: no start, says who can help; keys only then; managers grant more, recorded', async (t) => {
  const stuck = await w.newLearner();
  const quiz = await w.quizOfChapter(ch1!.id);
  const [question] = await w.questionsOf(quiz.id);
  for (let i = 1; i <= 3; i++) {
    const started = await form(stuck.cookie, `/learn/quizzes/${quiz.id}/start`);
    t.equal(started.statusCode, 303, `attempt ${i} starts`);
    t.match(started.headers.location, /^\/learn\/quiz-attempts\/\d+$/);
    await form(stuck.cookie, `${started.headers.location}/submit`, { [`q${question!.id}`]: 'b' });
    const result = await get(stuck.cookie, started.headers.location as string, 'en');
    t.match(result.body, 'Not passed');
    if (i < 3) {
      t.notMatch(result.body, KEYS, `attempt ${i}: no answer key nor explanation while attempts remain`);
      t.match(result.body, 'shown once you pass this quiz or have no attempts left');
      t.match(result.body, 'Try again');
    } else {
      t.notMatch(result.body, 'Try again', 'no try again without attempts');
      t.match(result.body, 'Because a is right', 'out of attempts: the review');
      t.match(result.body, 'Your answer: Wrong · <strong>Wrong</strong>');
      t.match(result.body, 'The course&#39;s teacher or an admin of its institution can grant more');
      // Named, with a link: no "contact them" without a name.
      t.match(
        result.body,
        `Contact: <a href="mailto:${people.owner.email}">${people.owner.name}</a> (the course&#39;s teacher) or <a href="mailto:${people.admin.email}">${people.admin.name}</a> (an admin of `,
      );
    }
  }
  for (const lang of ['id', 'en']) {
    const intro = await get(stuck.cookie, `/learn/quizzes/${quiz.id}`, lang);
    t.equal(intro.statusCode, 200);
    t.notMatch(intro.body, `/learn/quizzes/${quiz.id}/start`, `${lang}: no start form without attempts`);
    t.match(intro.body, lang === 'id' ? 'Percobaan Anda sudah habis (3 dari 3)' : 'You have no attempts left (3 of 3 used)');
    t.match(
      intro.body,
      lang === 'id' ? `Hubungi: <a href="mailto:${people.owner.email}">` : `Contact: <a href="mailto:${people.owner.email}">`,
      `${lang}: the teacher named, with a link`,
    );
    t.match(intro.body, `href="mailto:${people.admin.email}"`, `${lang}: an admin of the institution, with a link`);
    await followLinks(t, stuck.cookie, intro.body, lang, 'quiz page out of attempts');
  }
  const course = await get(stuck.cookie, `/dashboard/courses/${w.course.id}`, 'en');
  t.match(course.body, 'You have no attempts left at', 'the course page says why the learner is stuck');
  t.match(course.body, `<a href="mailto:${people.owner.email}">${people.owner.name}</a> (the course&#39;s teacher)`, 'and whom to ask');
  // A stale page's start: back to the quiz page that explains, not a 404.
  const stale = await form(stuck.cookie, `/learn/quizzes/${quiz.id}/start`);
  t.equal(stale.statusCode, 303);
  t.equal(stale.headers.location, `/learn/quizzes/${quiz.id}`);
  t.equal(
    (
      await w.app.inject({
        method: 'POST',
        url: `/api/learning/quizzes/${quiz.id}/attempts`,
        headers: { cookie: stuck.cookie, 'x-requested-with': 't' },
      })
    ).statusCode,
    409,
  );

  const grantUrl = `/dashboard/courses/${w.course.id}/learners/${stuck.user.id}/grants`;
  const grants = () => w.db.select().from(quizAttemptGrants).where(eq(quizAttemptGrants.userId, stuck.user.id));
  const fields = { quizId: String(quiz.id), extra: '1', reason: 'Sakit saat ujian' };
  // Attackers: another institution's teacher and admin, a teacher of the same institution who does not own it, a member, the learner themself.
  for (const who of ['otherTeacher', 'otherAdmin', 'sameInstitutionTeacher'] as const) {
    const res = await form(cookies[who], grantUrl, fields);
    t.equal(res.statusCode, 403, `${who} may not grant`);
    t.equal(
      (await get(cookies[who], `/dashboard/courses/${w.course.id}/learners/${stuck.user.id}`)).statusCode,
      403,
      `${who}: no grant page`,
    );
  }
  t.equal((await form(stuck.cookie, grantUrl, fields)).statusCode, 403, 'the learner may not grant themself');
  t.equal((await form(learner.cookie, grantUrl, fields)).statusCode, 403, 'another member may not');
  const key = await apiKeyFor(w.db, people.owner.id);
  const keyed = await w.app.inject({
    method: 'POST',
    url: grantUrl,
    headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
    payload: new URLSearchParams(fields).toString(),
  });
  t.not(keyed.statusCode, 303, `the owner's API key is no session (${keyed.statusCode})`);
  t.equal((await form(cookies.owner, grantUrl, fields, null)).statusCode, 403, 'a form without Origin (CSRF)');
  t.equal((await form(cookies.owner, grantUrl, fields, 'https://evil.example')).statusCode, 403, 'a foreign Origin (CSRF)');
  t.same(await grants(), [], 'nothing granted by any of them');

  // Wrong input: said on the page, nothing recorded.
  for (const bad of [
    { ...fields, extra: '0' },
    { ...fields, extra: '21' },
    { ...fields, reason: '   ' },
    { ...fields, reason: 'x'.repeat(501) },
    { ...fields, quizId: 'abc' },
    { quizId: String(quiz.id), extra: '1' },
  ]) {
    const res = await form(cookies.owner, grantUrl, bad);
    t.equal(res.statusCode, 303, `bad form ${JSON.stringify(bad).slice(0, 60)}`);
    t.match(res.headers.location, /granted=invalid/);
  }
  const otherCourseQuiz = await w.db
    .insert(quizzes)
    .values({ courseId: (await makeOtherCourse()).id, scope: 'final', name: 'Elsewhere' })
    .returning();
  t.equal(
    (await form(cookies.owner, grantUrl, { ...fields, quizId: String(otherCourseQuiz[0]!.id) })).statusCode,
    404,
    "another course's quiz",
  );
  const notEnrolled = await makeUser(w.db);
  t.equal(
    (await form(cookies.owner, `/dashboard/courses/${w.course.id}/learners/${notEnrolled.id}/grants`, fields)).statusCode,
    404,
    'someone not enrolled',
  );
  t.same(await grants(), [], 'still nothing recorded');

  const ok = await form(cookies.owner, grantUrl, fields);
  t.equal(ok.statusCode, 303);
  const recorded = await grants();
  t.equal(recorded.length, 1);
  t.match(recorded[0], { quizId: quiz.id, extraAttempts: 1, reason: 'Sakit saat ujian', grantedBy: people.owner.id });
  const grantPage = await get(cookies.owner, ok.headers.location as string, 'en');
  t.match(grantPage.body, 'Extra attempts granted and recorded.');
  t.match(grantPage.body, `+1 attempt at ${quiz.name} by ${people.owner.name}`);
  t.match(grantPage.body, 'Sakit saat ujian');
  await followLinks(t, cookies.owner, grantPage.body, 'en', 'grant page');
  // Admins of the course's institution and super_admin may grant too.
  t.equal((await form(cookies.admin, grantUrl, { ...fields, reason: 'admin' })).statusCode, 303);
  t.equal((await form(cookies.superAdmin, grantUrl, { ...fields, reason: 'super' })).statusCode, 303);
  t.equal((await grants()).length, 3);

  const intro = await get(stuck.cookie, `/learn/quizzes/${quiz.id}`, 'en');
  t.match(intro.body, 'Attempts used: 3 of 6');
  t.match(intro.body, `/learn/quizzes/${quiz.id}/start`, 'start is offered again');
  // The JSON API agrees on what is left.
  const api = await takeQuiz(w.app, stuck.cookie, quiz.id, 'b');
  t.equal(api.statusCode, 200);
  t.equal(api.json().attemptsLeft, 2);
});

async function makeOtherCourse() {
  const { makeCourse } = await import('../helpers/catalog-fixtures.js');
  return makeCourse(w.db, { teacherId: people.otherTeacher.id, institutionId: otherInstitution });
}

t.test('owners and admins read their course without enrolling; preview writes nothing; others are refused', async (t) => {
  const module2Quiz = await w.quizOfModule(w.tree.modules[1]!.module.id);
  for (const who of ['owner', 'admin', 'superAdmin'] as const) {
    for (const lang of ['id', 'en']) {
      const course = await get(cookies[who], `/dashboard/courses/${w.course.id}`, lang);
      t.equal(course.statusCode, 200);
      t.notMatch(course.body, `/dashboard/courses/${w.course.id}/enrol`, `${who}: no enrol form`);
      t.match(course.body, `href="/dashboard/courses/${w.course.id}/preview"`);
      t.match(course.body, `href="/dashboard/courses/${w.course.id}/learners"`);
      t.match(course.body, `href="/learn/chapters/${ch3!.id}"`, `${who}: every chapter is a link`);
      t.match(course.body, `href="/learn/quizzes/${module2Quiz.id}"`);
      await followLinks(t, cookies[who], course.body, lang, `${who} course page`);
      const preview = await get(cookies[who], `/dashboard/courses/${w.course.id}/preview`, lang);
      t.equal(preview.statusCode, 200);
      t.match(preview.body, lang === 'id' ? 'Pratinjau:' : 'Preview:');
      t.match(preview.body, lang === 'id' ? 'terkunci bagi peserta baru' : 'locked for a new learner');
      await followLinks(t, cookies[who], preview.body, lang, `${who} preview`);
    }
    const chapter = await get(cookies[who], `/learn/chapters/${ch2!.id}`, 'en');
    t.equal(chapter.statusCode, 200, `${who} reads a chapter locked for learners`);
    t.match(chapter.body, 'Read-only');
    t.notMatch(chapter.body, '/complete"', 'no mark-complete form');
    const quizPage = await get(cookies[who], `/learn/quizzes/${w.tree.finalQuizId}`, 'en');
    t.equal(quizPage.statusCode, 200);
    t.notMatch(quizPage.body, '/start"', 'no start form in the preview');
    t.notMatch(quizPage.body, KEYS, 'the preview shows questions without keys');
    t.match(quizPage.body, 'Right', 'its options');
  }
  // Preview writes nothing: a manager's completion is refused (not enrolled) and leaves no row.
  const completion = await form(cookies.owner, `/learn/chapters/${ch1!.id}/complete`);
  t.equal(completion.statusCode, 403);
  t.same(await w.db.select().from(chapterCompletions).where(eq(chapterCompletions.userId, people.owner.id)), []);

  for (const who of ['otherTeacher', 'otherAdmin', 'sameInstitutionTeacher'] as const) {
    t.equal((await get(cookies[who], `/dashboard/courses/${w.course.id}/preview`)).statusCode, 403, `${who}: no preview`);
    t.equal((await get(cookies[who], `/learn/chapters/${ch2!.id}`)).statusCode, 403, `${who}: no chapter`);
  }
  t.equal((await get(learner.cookie, `/dashboard/courses/${w.course.id}/preview`)).statusCode, 403, 'a member: no preview');
  t.equal((await get(cookies.owner, '/dashboard/courses/99999999/preview')).statusCode, 404);
  const key = await apiKeyFor(w.db, people.owner.id);
  const keyed = await w.app.inject({ url: `/dashboard/courses/${w.course.id}/preview`, headers: { 'x-api-key': key } });
  t.equal(keyed.statusCode, 302, 'an API key is sent to sign in');
});

t.test('the learners page and its CSV: figures per learner, safe cells, managers only', async (t) => {
  await w.db.update(users).set({ name: '=HYPERLINK("http://evil")' }).where(eq(users.id, learner.user.id));
  const other = await w.newLearner();
  await w.db.update(users).set({ name: '+Budi, "B"' }).where(eq(users.id, other.user.id));
  const pageRes = await get(cookies.owner, `/dashboard/courses/${w.course.id}/learners`, 'en');
  t.equal(pageRes.statusCode, 200);
  t.match(pageRes.body, '=HYPERLINK(&quot;http://evil&quot;)');
  t.match(pageRes.body, 'Download CSV');
  t.match(pageRes.body, /1 \/ 3/, 'chapters done of the learner who completed one');
  await followLinks(t, cookies.owner, pageRes.body, 'en', 'learners page');
  t.match((await get(cookies.admin, `/dashboard/courses/${w.course.id}/learners`)).statusCode, 200);

  const csv = await get(cookies.owner, `/dashboard/courses/${w.course.id}/learners.csv`);
  t.equal(csv.statusCode, 200);
  t.match(csv.headers['content-type'], 'text/csv');
  t.match(csv.headers['content-disposition'], 'attachment');
  t.match(csv.body, `"'=HYPERLINK(""http://evil"")"`, 'a formula is neutralised and quoted');
  t.match(csv.body, `"'+Budi, ""B"""`, 'a leading + too, with its comma and quotes escaped');
  t.notMatch(csv.body, /(^|,)"?=HYPERLINK/m, 'no cell starts with =');
  const lines = csv.body.trim().split('\r\n');
  t.equal(lines.length, 1 + 3, 'a header and one line per learner');
  t.match(lines[0], /^"name","email","membership_id",/);

  for (const who of ['otherTeacher', 'otherAdmin', 'sameInstitutionTeacher'] as const) {
    t.equal((await get(cookies[who], `/dashboard/courses/${w.course.id}/learners`)).statusCode, 403, `${who}: no learners page`);
    t.equal((await get(cookies[who], `/dashboard/courses/${w.course.id}/learners.csv`)).statusCode, 403, `${who}: no CSV`);
  }
  t.equal((await get(learner.cookie, `/dashboard/courses/${w.course.id}/learners.csv`)).statusCode, 403, 'a member: no CSV');
  const key = await apiKeyFor(w.db, people.owner.id);
  const keyed = await w.app.inject({ url: `/dashboard/courses/${w.course.id}/learners.csv`, headers: { 'x-api-key': key } });
  t.equal(keyed.statusCode, 302, 'an API key gets no CSV');
  t.notMatch(keyed.body, 'HYPERLINK');
});

t.test("a learner whose id has an underscore (the synthetic seed's ids) has a learner page and takes grants", async (t) => {
  const [seeded] = await w.db
    .insert(users)
    .values({ id: 'seedx_000000042', email: 'seeded.42@example.test', name: 'Seeded', role: 'student' })
    .returning();
  await w.db.insert(enrollments).values({ userId: seeded!.id, courseId: w.course.id });
  const learnerPage = `/dashboard/courses/${w.course.id}/learners/${seeded!.id}`;
  t.equal((await get(cookies.owner, learnerPage)).statusCode, 200);
  const [quiz] = await w.db.select().from(quizzes).where(eq(quizzes.courseId, w.course.id)).limit(1);
  const res = await form(cookies.owner, `${learnerPage}/grants`, { quizId: String(quiz!.id), extra: '1', reason: 'Seeded learner' });
  t.equal(res.statusCode, 303);
  t.match(res.headers.location, 'granted=granted');
  t.equal(
    (await get(cookies.owner, `/dashboard/courses/${w.course.id}/learners/seedx_0000%2F42`)).statusCode,
    404,
    'other characters stay refused',
  );
});

t.test('a course with every chapter done and the final exam open says what is left', async (t) => {
  const l = await w.newLearner();
  await finishAllButFinal(w, l.cookie);
  const course = await get(l.cookie, `/dashboard/courses/${w.course.id}`, 'en');
  t.match(course.body, 'Every chapter is done. What is left: pass Final exam.');
  t.match(course.body, `href="/learn/quizzes/${w.tree.finalQuizId}"`);
  const dash = await get(l.cookie, '/dashboard', 'id');
  t.match(dash.body, 'Semua bab sudah selesai. Yang tersisa: lulus Final exam.');
  // Two failed final attempts: out of attempts, but the final exam's keys stay hidden.
  for (let i = 0; i < 2; i++) t.equal((await takeQuiz(w.app, l.cookie, w.tree.finalQuizId, 'b')).statusCode, 200);
  const intro = await get(l.cookie, `/learn/quizzes/${w.tree.finalQuizId}`, 'en');
  const attempt = intro.body.match(/href="(\/learn\/quiz-attempts\/\d+)"/)![1]!;
  const result = await get(l.cookie, attempt, 'en');
  t.notMatch(result.body, KEYS, 'no final-exam keys when out of attempts');
  t.match(result.body, 'The final exam’s questions are shown only during an attempt, without a review.');
  const passed = await w.newLearner();
  await finishAllButFinal(w, passed.cookie);
  t.equal((await takeQuiz(w.app, passed.cookie, w.tree.finalQuizId, 'a')).json().passed, true);
  const passedIntro = await get(passed.cookie, `/learn/quizzes/${w.tree.finalQuizId}`, 'en');
  const passedAttempt = passedIntro.body.match(/href="(\/learn\/quiz-attempts\/\d+)"/)![1]!;
  const passedResult = await get(passed.cookie, passedAttempt, 'en');
  t.match(passedResult.body, 'Passed');
  t.notMatch(passedResult.body, KEYS, 'no final-exam questions nor keys after passing either');
  t.notMatch(passedResult.body, 'Question ', 'not even the question text');
});

t.test('quiz titles are not doubled; the teacher dashboard says average progress and who finished', async (t) => {
  const quiz = await w.quizOfChapter(ch1!.id);
  await w.db
    .update(quizzes)
    .set({ name: 'Kuis: Dasar etika' })
    .where(and(eq(quizzes.id, quiz.id)));
  const course = await get(learner.cookie, `/dashboard/courses/${w.course.id}`);
  t.match(course.body, 'Kuis: Dasar etika');
  t.notMatch(course.body, 'Kuis: Kuis:');
  const intro = await get(learner.cookie, `/learn/quizzes/${quiz.id}`);
  t.notMatch(intro.body, 'Kuis: Kuis:');
  const staff = await get(cookies.owner, '/dashboard', 'en');
  t.match(staff.body, 'Learners&#39; average progress');
  t.match(staff.body, /learners? finished every chapter/);
  const staffId = await get(cookies.owner, '/dashboard', 'id');
  t.match(staffId.body, 'Rata-rata kemajuan peserta');
});

t.test('GET / is a landing page; a wrong certificate code says it is not valid', async (t) => {
  for (const lang of ['id', 'en']) {
    const anon = await get(null, '/', lang);
    t.equal(anon.statusCode, 200);
    t.match(anon.headers['content-type'], 'text/html');
    t.match(anon.body, 'href="/sign-in"');
    t.match(anon.body, 'href="/dashboard/catalog"');
    await followLinks(t, null, anon.body, lang, 'landing (anonymous)');
    const signedIn = await get(learner.cookie, '/', lang);
    t.match(signedIn.body, 'href="/dashboard"');
    t.notMatch(signedIn.body, 'href="/sign-in"');
    await followLinks(t, learner.cookie, signedIn.body, lang, 'landing (signed in)');

    for (const url of ['/certificates/not-a-code', `/certificates/${'0'.repeat(32)}`, '/certificates?code=bogus']) {
      const res = await get(null, url, lang);
      t.equal(res.statusCode, 404, url);
      t.match(res.body, lang === 'id' ? 'sertifikat ini tidak sah' : 'this certificate is not valid');
      t.notMatch(res.body, 'href="/sign-in"', 'no sign-in link on the check');
    }
    const formPage = await get(null, '/certificates', lang);
    t.equal(formPage.statusCode, 200);
    t.match(formPage.body, 'name="code"');
  }
  const l = await w.newLearner();
  await finishAllButFinal(w, l.cookie);
  const code = (await takeQuiz(w.app, l.cookie, w.tree.finalQuizId, 'a')).json().certificateCode as string;
  const valid = await get(null, `/certificates?code=${code}`, 'en');
  t.equal(valid.statusCode, 200);
  t.match(valid.body, 'This certificate is valid.');
});

t.test('a large course: the learners page is paged, the CSV has everyone', async (t) => {
  const { makeCourse } = await import('../helpers/catalog-fixtures.js');
  const { enrol } = await import('./world.js');
  const big = await makeCourse(w.db, { teacherId: people.owner.id, institutionId });
  for (let i = 0; i < 53; i++) {
    const u = await makeUser(w.db, { name: `Peserta ${String(i).padStart(2, '0')}` });
    await enrol(w.db, u.id, big.id);
  }
  const first = await get(cookies.owner, `/dashboard/courses/${big.id}/learners`, 'en');
  t.equal(first.statusCode, 200);
  t.match(first.body, '53 learners enrolled');
  t.equal((first.body.match(/<tr>/g) ?? []).length, 1 + 50, 'a header and 50 rows');
  t.match(first.body, `href="/dashboard/courses/${big.id}/learners?page=2"`);
  await followLinks(t, cookies.owner, first.body, 'en', 'learners page 1');
  const second = await get(cookies.owner, `/dashboard/courses/${big.id}/learners?page=2`, 'en');
  t.equal((second.body.match(/<tr>/g) ?? []).length, 1 + 3);
  t.match(second.body, 'Peserta 52');
  t.equal((await get(cookies.owner, `/dashboard/courses/${big.id}/learners?page=abc`)).statusCode, 200, 'a bad page number is page 1');
  const csv = await get(cookies.owner, `/dashboard/courses/${big.id}/learners.csv`);
  t.equal(csv.body.trim().split('\r\n').length, 1 + 53);
});
