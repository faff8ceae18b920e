import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
// @ts-expect-error -- the example partner backend is plain JavaScript, written to be copied.
import { publishCourseFromDocument, signCourseToken } from '@lms/example-partner-backend/src/course-sync.js';
import { apiKeys, certificates, enrollments, generateApiKey, generateSessionToken, partnerInstitutions, sessions, users } from '@lms/db';
import { progressFromRawRows } from '@lms/db/testing';
import { and, eq } from 'drizzle-orm';
import t from 'tap';
import { makeTeacher, startDemoPartner, startLms } from './helpers/services.js';

// The whole loop through real servers: the demo partner's backend creates a course through the
// gateway, fills it from its JSON file and publishes it (the example's publish-course command);
// an integrator's API key finds it in the catalog without answer keys; a member enrols, completes
// it and gets a certificate; /api/lms-progress moves as the raw-row oracle says.

const ANSWER_KEYS = /"(isCorrect|is_correct|correct|correctAnswer|correct_answer|essayAnswer|essay_answer|explanation)"/;

t.test('a partner authors and publishes a course; a member completes it', async (t) => {
  const lms = await startLms(t);
  const db = lms.db.db;
  const { institutionId, teacherId } = await makeTeacher(db);
  const partner = await startDemoPartner(t, lms.url, db);
  await db.insert(partnerInstitutions).values({ partnerId: partner.partnerId, institutionId });
  const documentFile = createRequire(import.meta.url).resolve('@lms/example-partner-backend/course.example.json');
  const document = JSON.parse(await readFile(documentFile, 'utf8'));

  const { key, keyHash, prefix } = generateApiKey();
  await db.insert(apiKeys).values({ keyHash, prefix, userId: teacherId, name: 'integrator' });
  const asKey = (path: string) => fetch(`${lms.url}${path}`, { headers: { 'x-api-key': key } });
  const progress = async () => (await (await asKey('/api/lms-progress')).json()).data.overall;
  t.same(await progress(), await progressFromRawRows(db, new Date()), 'before: the metrics are the raw rows');

  const lines: string[] = [];
  const published = await publishCourseFromDocument({
    key: partner.key,
    issuer: partner.iss,
    gatewayUrl: partner.gatewayUrl,
    institutionId,
    teacherId,
    document,
    log: { info: (line: string) => lines.push(line) },
  });
  t.equal(published.isPublished, true, lines.join('\n'));
  const courseId = published.courseId as number;
  t.match(lines, [/created/, /filled: 2 module\(s\), 3 chapter\(s\)/, /published/]);
  // Run again with the same file: every step replays (Idempotency-Key), nothing new.
  const again = await publishCourseFromDocument({
    key: partner.key,
    issuer: partner.iss,
    gatewayUrl: partner.gatewayUrl,
    institutionId,
    teacherId,
    document,
    log: { info() {} },
  });
  t.equal(again.courseId, courseId, 'the same course again, not a second one');

  // Its credit is not the partner's to give: an admin of the institution records the accreditation.
  const adminSession = generateSessionToken();
  const [admin] = await db.insert(users).values({ email: 'admin@example.test', name: 'Admin', role: 'admin', institutionId }).returning();
  await db.insert(sessions).values({ tokenHash: adminSession.tokenHash, userId: admin!.id, expiresAt: new Date(Date.now() + 3_600_000) });
  const accredited = await fetch(`${lms.url}/api/courses/${courseId}/accreditations`, {
    method: 'POST',
    headers: {
      cookie: `${lms.app.sessionCookieName}=${adminSession.token}`,
      'x-requested-with': 'e2e',
      'content-type': 'application/json',
    },
    body: JSON.stringify({ scheme: 'KUM', reference: 'SK-E2E-001', validFrom: '2020-01-01', value: 2 }),
  });
  t.equal(accredited.status, 201, await accredited.text());

  // An integrator's key finds it, without any answer key, in the list and the detail.
  const list = await asKey(`/api/courses?courseId=${courseId}`);
  const listed = await list.text();
  t.match(JSON.parse(listed).courses, [{ id: String(courseId), name: document.course.name, eventCode: 'DP-2026-UMKM', nilaiKum: 2 }]);
  t.notMatch(listed, ANSWER_KEYS, 'no answer key in the list');
  const detail = await (await asKey(`/api/courses/${courseId}`)).text();
  t.equal(JSON.parse(detail).course.modules.length, 2);
  t.notMatch(detail, ANSWER_KEYS, 'no answer key in the detail');
  const exported = await fetch(`${lms.url}/api/courses/${courseId}/document`, { headers: { 'x-api-key': key } });
  t.equal(exported.status, 403, 'an API key cannot export the course');

  // A member enrols (open course), reads and completes every chapter, passes every quiz and the final exam.
  const { token, tokenHash } = generateSessionToken();
  const [member] = await db.insert(users).values({ email: 'anggota@example.test', name: 'Anggota', role: 'student' }).returning();
  await db.insert(sessions).values({ tokenHash, userId: member!.id, expiresAt: new Date(Date.now() + 3_600_000) });
  const asMember = (method: string, path: string, body?: unknown) =>
    fetch(`${lms.url}${path}`, {
      method,
      headers: {
        cookie: `${lms.app.sessionCookieName}=${token}`,
        'x-requested-with': 'e2e',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  t.equal((await asMember('POST', `/api/learning/courses/${courseId}/enrollment`, {})).status, 201);
  const doc = published.document;
  const answersOf = (quiz: {
    questions: { id: number; questionType: string; correctAnswer: string | null; options: { id: string; isCorrect: boolean }[] }[];
  }) =>
    Object.fromEntries(
      quiz.questions.map((q) => [
        q.id,
        q.questionType === 'essay'
          ? 'Mulai mencatat penjualan.'
          : q.options.length > 0
            ? q.options
                .filter((o) => o.isCorrect)
                .map((o) => o.id)
                .join(',')
            : (q.correctAnswer as string).toUpperCase(),
      ]),
    );
  const pass = async (quiz: Parameters<typeof answersOf>[0] & { id: number }) => {
    const attempt = await (await asMember('POST', `/api/learning/quizzes/${quiz.id}/attempts`)).json();
    const result = await (
      await asMember('POST', `/api/learning/quiz-attempts/${attempt.attemptId}/submission`, { answers: answersOf(quiz) })
    ).json();
    t.equal(result.passed, true, `${quiz.id}: passed with ${result.score}`);
    return result;
  };
  for (const m of doc.modules) {
    for (const ch of m.chapters) {
      t.equal((await asMember('POST', `/api/learning/chapters/${ch.id}/completion`)).status, 201, `complete ${ch.name}`);
      if (ch.quiz) await pass(ch.quiz);
    }
    if (m.quiz) await pass(m.quiz);
  }
  const final = await pass(doc.finalExam);
  t.match(final.certificateCode, /^[0-9a-f]{32}$/, 'the final exam earned the certificate');
  const [cert] = await db
    .select()
    .from(certificates)
    .where(and(eq(certificates.userId, member!.id), eq(certificates.courseId, courseId)));
  t.equal(Number(cert!.kum), 2, 'with the course KUM');
  const [enrollment] = await db.select().from(enrollments).where(eq(enrollments.userId, member!.id));
  t.equal(enrollment!.completedChapters, 3);

  // The metrics moved as the raw rows say.
  const after = await progress();
  t.same(after, await progressFromRawRows(db, new Date()), 'after: the metrics are the raw rows');
  t.match(after, {
    totalCourses: 1,
    totalClasses: 1,
    totalDaftar: 1,
    totalSelesai: 1,
    totalSertifikat: 1,
    completionRate: 100,
    totalKum30Days: 2,
  });

  // The partner changes the course under the member (a chapter added): the member's progress
  // follows the spec's rule, the certificate stays.
  const filled = await fetch(`${partner.gatewayUrl}/api/courses/${courseId}/document`, {
    headers: { authorization: `Bearer ${await signCourseToken(partner.key, partner.iss)}` },
  });
  const current = (await filled.json()).document;
  current.modules[1].chapters.push({ name: 'Bab baru', content: 'Tambahan', quiz: null });
  const put = await fetch(`${partner.gatewayUrl}/api/courses/${courseId}/document`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${await signCourseToken(partner.key, partner.iss)}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(current),
  });
  t.equal(put.status, 200);
  const edited = await progress();
  t.same(edited, await progressFromRawRows(db, new Date()), 'after an edit: the metrics are the raw rows');
  t.match(edited, { totalSelesai: 0, completionRate: 75, totalSertifikat: 1 });
});
