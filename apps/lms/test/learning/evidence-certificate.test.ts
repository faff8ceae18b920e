import { certificates, courses, evidenceLog } from '@lms/db';
import { and, eq } from 'drizzle-orm';
import t from 'tap';
import { as } from './world.js';
import { evidenceWorld, finishAllButFinalWithPreTest, GOOD_FORM, takeQuizScoring } from './evidence-world.js';

// The certificate waits for the evidence the course's accreditation requires (SKP-KEMENKES: a
// pre-test, a post-test at 70 or more, the evaluation form); a course may raise the minimum. A
// course without an accreditation issues as before. The final exam is the post-test here (five
// questions: scores in steps of 20; its pass mark is the course's minPassingScore, 70).

const w = await evidenceWorld(t);
await w.accredit('SKP-KEMENKES');

const certificateOf = async (userId: string) =>
  (
    await w.db
      .select()
      .from(certificates)
      .where(and(eq(certificates.userId, userId), eq(certificates.courseId, w.course.id)))
  )[0];

t.test('SKP-KEMENKES: the certificate waits for a post-test of 70 and the evaluation', async (t) => {
  const { user, cookie } = w.learner;
  const me = as(w.app, cookie);
  await finishAllButFinalWithPreTest(w, cookie);
  const failed = await takeQuizScoring(w, cookie, w.tree.finalQuizId, 3);
  t.match(failed.json(), { score: 60, passed: false, certificateCode: null }, 'a post-test of 60 fails');
  const passed = await takeQuizScoring(w, cookie, w.tree.finalQuizId, 4);
  t.match(passed.json(), { score: 80, passed: true, certificateCode: null }, 'passed, but the evaluation is missing');
  t.equal(await certificateOf(user.id), undefined, 'no certificate yet');
  const catalog = (await me.get(`/api/courses?courseId=${w.course.id}`)).json().courses[0];
  t.match(catalog, { status: 'in-progress', certificate: { isEligible: false, isGenerated: false } }, 'the catalog says it waits');
  for (const [lang, words] of [
    ['en', /fill in the course evaluation/],
    ['id', /isi evaluasi kursus/],
  ] as const) {
    const page = await w.app.inject({ url: `/dashboard/courses/${w.course.id}`, headers: { cookie, 'accept-language': lang } });
    t.match(page.body, words, `the course page says what is missing (${lang})`);
    t.match(page.body, `/learn/courses/${w.course.id}/evaluation`, 'with a link to the form');
  }

  const evaluated = await me.post(`/api/learning/courses/${w.course.id}/evaluation`, GOOD_FORM);
  t.equal(evaluated.statusCode, 201, evaluated.body);
  const code = evaluated.json().certificateCode;
  t.match(code, /^[0-9a-f]{32}$/, 'the evaluation issues the certificate');
  const cert = await certificateOf(user.id);
  t.match(cert!.evidence, {
    preTestScore: 0,
    postTestScore: 80,
    evaluationDone: true,
    // A day on each chapter (finishAllButFinalWithPreTest), counted whole.
    minutes: w.tree.modules.flatMap((m) => m.chapters).length * 1440,
    // Both in force: the KUM the world's course fixture records and the SKP-KEMENKES one.
    accreditations: [
      { scheme: 'KUM', unit: 'KUM', reference: 'SK-TEST-001', value: 4.5, validFrom: '1970-01-01T00:00:00Z', validUntil: null },
      { scheme: 'SKP-KEMENKES', unit: 'JPL', reference: 'REF-SKP-KEMENKES', value: 2, validFrom: '2020-01-01T00:00:00Z', validUntil: null },
    ],
  });
  t.ok(cert!.evidence!.expectedMinutes >= 3, 'expected minutes: at least one a chapter');
  const log = await w.db
    .select({ kind: evidenceLog.kind })
    .from(evidenceLog)
    .where(and(eq(evidenceLog.userId, user.id), eq(evidenceLog.courseId, w.course.id)));
  t.same(
    log.map((l) => l.kind).sort(),
    [
      'certificate',
      ...w.tree.modules.flatMap((m) => m.chapters).map(() => 'chapter_completed'),
      'evaluation',
      'post_test',
      'post_test',
      'pre_test',
    ],
    'the trail: the pre-test, each chapter, both post-test attempts, the evaluation, the certificate',
  );
});

t.test('a course raising the minimum to 90: a post-test of 80 is not enough, 100 is', async (t) => {
  await w.db.update(courses).set({ postTestMinScore: 90 }).where(eq(courses.id, w.course.id));
  const { user, cookie } = await w.newLearner();
  const me = as(w.app, cookie);
  await finishAllButFinalWithPreTest(w, cookie);
  t.match((await takeQuizScoring(w, cookie, w.tree.finalQuizId, 4)).json(), { score: 80, passed: true, certificateCode: null });
  t.match((await me.post(`/api/learning/courses/${w.course.id}/evaluation`, GOOD_FORM)).json(), { certificateCode: null });
  t.equal(await certificateOf(user.id), undefined, 'still waiting for the post-test score');
  const page = await w.app.inject({ url: `/dashboard/courses/${w.course.id}`, headers: { cookie, 'accept-language': 'en' } });
  t.match(page.body, /post-test score of at least 90/, 'the course page names the minimum');
  const again = await takeQuizScoring(w, cookie, w.tree.finalQuizId, 5);
  t.match(again.json(), { score: 100, certificateCode: /^[0-9a-f]{32}$/ }, 'a post-test of 100 issues it');
  t.match((await certificateOf(user.id))!.evidence, { postTestScore: 100, evaluationDone: true });
  await w.db.update(courses).set({ postTestMinScore: null }).where(eq(courses.id, w.course.id));
});

t.test('a course without accreditation issues as before, with its evidence written', async (t) => {
  const plain = await evidenceWorld(t);
  const { user, cookie } = plain.learner;
  await finishAllButFinalWithPreTest(plain, cookie);
  const passed = await takeQuizScoring(plain, cookie, plain.tree.finalQuizId, 4);
  t.match(passed.json(), { score: 80, passed: true, certificateCode: /^[0-9a-f]{32}$/ }, 'no evaluation needed');
  const [cert] = await plain.db.select().from(certificates).where(eq(certificates.userId, user.id));
  t.match(cert!.evidence, { preTestScore: 0, postTestScore: 80, evaluationDone: false, accreditations: [] });
});

t.test('an accreditation no longer in force asks for nothing', async (t) => {
  const old = await evidenceWorld(t);
  await old.accredit('SKP-KEMENKES');
  const { courseAccreditations } = await import('@lms/db');
  await old.db
    .update(courseAccreditations)
    .set({ validUntil: new Date('2021-01-01T00:00:00Z') })
    .where(eq(courseAccreditations.courseId, old.course.id));
  await finishAllButFinalWithPreTest(old, old.learner.cookie);
  const passed = await takeQuizScoring(old, old.learner.cookie, old.tree.finalQuizId, 4);
  t.match(passed.json(), { certificateCode: /^[0-9a-f]{32}$/ });
});
