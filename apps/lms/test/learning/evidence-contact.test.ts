import { quizzes } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { evidenceWorld } from './evidence-world.js';

// A certificate that waits for a quiz the course does not have (the accreditation asks for a
// pre-test and none is marked as one): the learner cannot act, so the course page names whom to
// ask, the course's teacher first, with a link.

t.test('a missing evidence quiz names the teacher to ask', async (t) => {
  const w = await evidenceWorld(t);
  await w.accredit('SKP-KEMENKES');
  const { cookie } = w.learner;
  const page = (lang: string) => w.app.inject({ url: `/dashboard/courses/${w.course.id}`, headers: { cookie, 'accept-language': lang } });

  const withQuiz = await page('en');
  t.match(withQuiz.body, `href="/learn/quizzes/${w.preTestId}"`, 'with its pre-test: a link to it');
  t.notMatch(withQuiz.body, 'no such quiz yet', 'nothing to ask about');

  await w.db.update(quizzes).set({ evidenceRole: null }).where(eq(quizzes.id, w.preTestId));
  for (const [lang, missing, contact] of [
    ['en', 'the course has no such quiz yet', 'Contact: <a href="mailto:'],
    ['id', 'kursus ini belum memiliki kuis tersebut', 'Hubungi: <a href="mailto:'],
  ] as const) {
    const res = await page(lang);
    t.equal(res.statusCode, 200);
    t.match(res.body, missing, `${lang}: says the quiz is missing`);
    t.match(res.body, `${contact}${w.teacher.email}">${w.teacher.name}</a>`, `${lang}: names the teacher, with a link`);
  }
});
