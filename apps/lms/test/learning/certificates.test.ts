import { certificates, credits, quizAttempts, quizzes } from '@lms/db';
import { reissueCertificate, revokeCertificate } from '../../src/domain/learning/certificate-revocation.js';
import { and, eq } from 'drizzle-orm';
import t from 'tap';
import { findAnswerKeys } from '../helpers/answer-keys.js';
import { sessionCookieFor } from '../helpers/fixtures.js';
import { as, finishAllButFinal, learningWorld, takeQuiz } from './world.js';
import { outboxOnly } from '../../src/domain/partner-events/queue.js';

const w = await learningWorld(t);
const me = as(w.app, w.learner.cookie);

t.test('the walk: every chapter and quiz, a failed final, a passed final → one certificate with the KUM', async (t) => {
  const teacher = as(w.app, await sessionCookieFor(w.app, w.teacher.id));
  const metrics = async () => (await teacher.get('/api/lms-progress')).json().data.overall;
  const before = await metrics();
  await finishAllButFinal(w, w.learner.cookie);
  t.same((await me.get('/api/learning/certificates')).json().certificates, [], 'no certificate before the final');
  const failed = await takeQuiz(w.app, w.learner.cookie, w.tree.finalQuizId, 'b');
  t.match(failed.json(), { passed: false, passMark: 70, certificateCode: null }, "the final's pass mark is the course's minPassingScore");
  const passed = await takeQuiz(w.app, w.learner.cookie, w.tree.finalQuizId, 'a');
  t.match(passed.json(), { passed: true, score: 100, certificateCode: /^[0-9a-f]{32}$/ });
  const list = (await me.get('/api/learning/certificates')).json();
  t.same(findAnswerKeys(list), []);
  t.equal(list.certificates.length, 1);
  t.match(list.certificates[0], {
    code: passed.json().certificateCode,
    courseId: w.course.id,
    courseName: w.course.name,
    kum: 4.5,
    verificationUrl: `http://localhost:3000/certificates/${passed.json().certificateCode}`,
    status: 'valid',
    revokedAt: null,
    expiresAt: null,
  });
  const after = await metrics();
  t.same(
    [
      after.totalSelesai - before.totalSelesai,
      after.totalSertifikat - before.totalSertifikat,
      after.totalKum30Days - before.totalKum30Days,
    ],
    [1, 1, 4.5],
    "the teacher's metrics show the completion, the certificate and its KUM",
  );
  const catalog = (await me.get(`/api/courses?courseId=${w.course.id}`)).json().courses[0];
  t.match(
    catalog,
    { status: 'completed', totalProgress: 100, certificate: { isEligible: true, isGenerated: true } },
    'the catalog shows it',
  );

  const other = await w.newLearner();
  t.same(
    (await as(w.app, other.cookie).get('/api/learning/certificates')).json().certificates,
    [],
    "another learner's list has none of it",
  );
});

t.test('20 concurrent passing final submissions issue one certificate', async (t) => {
  const learner = await w.newLearner();
  await finishAllButFinal(w, learner.cookie);
  await w.db.update(quizzes).set({ maxAttempts: 25 }).where(eq(quizzes.id, w.tree.finalQuizId));
  // 20 open attempts (one per start would serialise them): the race is on the certificate.
  const opened = await w.db
    .insert(quizAttempts)
    .values(
      Array.from({ length: 20 }, () => ({ userId: learner.user.id, quizId: w.tree.finalQuizId, expiresAt: new Date(w.time.ms + 600_000) })),
    )
    .returning({ id: quizAttempts.id });
  const [question] = await w.questionsOf(w.tree.finalQuizId);
  const answers = { [String(question!.id)]: 'a' };
  const results = await Promise.all(
    opened.map((a) => as(w.app, learner.cookie).post(`/api/learning/quiz-attempts/${a.id}/submission`, { answers })),
  );
  t.same(
    results.map((r) => r.statusCode),
    Array(20).fill(200),
  );
  t.ok(results.every((r) => r.json().passed));
  t.equal(results.filter((r) => r.json().certificateCode !== null).length, 1, 'one answer carries the new certificate');
  const rows = await w.db
    .select()
    .from(certificates)
    .where(and(eq(certificates.userId, learner.user.id), eq(certificates.courseId, w.course.id)));
  t.equal(rows.length, 1);
  t.equal(rows[0]!.kum, 4.5);

  // And the same attempt submitted 20 times at once: one submission counts.
  const again = await w.newLearner();
  await finishAllButFinal(w, again.cookie);
  const attempt = (await as(w.app, again.cookie).post(`/api/learning/quizzes/${w.tree.finalQuizId}/attempts`)).json();
  const same = await Promise.all(
    Array.from({ length: 20 }, () =>
      as(w.app, again.cookie).post(`/api/learning/quiz-attempts/${attempt.attemptId}/submission`, { answers }),
    ),
  );
  t.same(same.map((r) => r.statusCode).sort(), [200, ...Array(19).fill(409)]);
  const theirs = await w.db.select().from(certificates).where(eq(certificates.userId, again.user.id));
  t.equal(theirs.length, 1);
});

t.test('a revoked certificate: the catalog no longer says issued, finishing again issues none, a reissue does', async (t) => {
  const learner = await w.newLearner();
  const mine = as(w.app, learner.cookie);
  await finishAllButFinal(w, learner.cookie);
  const passed = await takeQuiz(w.app, learner.cookie, w.tree.finalQuizId, 'a');
  const code = passed.json().certificateCode as string;
  const isGenerated = async () => (await mine.get(`/api/courses?courseId=${w.course.id}`)).json().courses[0].certificate.isGenerated;
  t.equal(await isGenerated(), true);
  t.match(await revokeCertificate(w.db, outboxOnly, code, 'Data peserta salah', new Date()), { outcome: 'revoked' });
  t.equal(await isGenerated(), false, 'the catalog does not show a revoked certificate as issued');
  t.match(
    (await mine.get('/api/learning/certificates')).json().certificates,
    [{ code, status: 'revoked', revokedAt: /^\d{4}-/ }],
    'the learner API says revoked too',
  );
  const again = await takeQuiz(w.app, learner.cookie, w.tree.finalQuizId, 'a');
  t.equal(again.json().certificateCode, null, 'passing the final again issues no new certificate');
  t.equal((await w.db.select().from(certificates).where(eq(certificates.userId, learner.user.id))).length, 1);
  const [voided] = await w.db.select().from(credits).where(eq(credits.userId, learner.user.id));
  t.ok(voided?.voidedAt, 'its credit is voided');
  const reissued = await reissueCertificate(w.db, outboxOnly, code, new Date());
  t.match(reissued, { outcome: 'reissued', code: /^[0-9a-f]{32}$/ });
  t.equal(await isGenerated(), true, 'the reissued certificate is shown');
  const record = await w.db.select().from(credits).where(eq(credits.userId, learner.user.id));
  t.same(
    record.map((r) => [r.amount, r.voidedAt === null, r.earnedAt.toISOString()]).sort((a, b) => Number(a[1]) - Number(b[1])),
    [
      [4.5, false, voided!.earnedAt.toISOString()],
      [4.5, true, voided!.earnedAt.toISOString()],
    ],
    'the credit moves to the new certificate with its first date; the old one stays voided',
  );
});

t.test('a course without a final exam: the certificate comes with the last chapter', async (t) => {
  const learner = await w.newLearner();
  await w.db.delete(quizzes).where(eq(quizzes.id, w.tree.finalQuizId));
  await finishAllButFinal(w, learner.cookie);
  const rows = await w.db.select().from(certificates).where(eq(certificates.userId, learner.user.id));
  t.equal(rows.length, 1);
});
