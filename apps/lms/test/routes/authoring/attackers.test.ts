import { courses } from '@lms/db';
import { count, eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { type Author, byPartner, bySession, sampleDocument, sampleQuiz } from '../../helpers/authoring.js';
import { creationHeaders, makeCourseCreator, TEST_GATEWAY_SECRET } from '../../helpers/course-creation.js';
import { apiKeyFor, makeUser, sessionCookieFor } from '../../helpers/fixtures.js';

// Every rule about who may author, attacked: another teacher, another institution's admin, a
// member, an API key (the owner's own), another partner, a replayed bearer token, a call that
// skips the gateway, a cross-site form; and bodies built to break the limits. Nothing an attacker
// sends changes the course (its export is compared before and after).

t.test('who may author a course, and everyone else', async (t) => {
  const { app, db } = await buildTestApp(t);
  const partnerA = await makeCourseCreator(db.db, 'partner-a.example');
  const partnerB = await makeCourseCreator(db.db, 'partner-b.example');
  const institutionA = partnerA.institutionId;
  const teacherA = partnerA.teacherId;
  const teacherB = await makeUser(db.db, { role: 'teacher', institutionId: institutionA });
  const adminA = await makeUser(db.db, { role: 'admin', institutionId: institutionA });
  const adminB = await makeUser(db.db, { role: 'admin', institutionId: partnerB.institutionId });
  const superAdmin = await makeUser(db.db, { role: 'super_admin' });
  const member = await makeUser(db.db, { role: 'student', institutionId: institutionA });
  const owner = await bySession(app, teacherA);

  // A draft and a course in the catalog, both teacher A's.
  const draft = await owner(
    'POST',
    '/api/course-documents',
    sampleDocument({ institutionId: institutionA, teacherId: teacherA }, { name: 'Draf' }),
  );
  const live = await owner(
    'POST',
    '/api/course-documents',
    sampleDocument({ institutionId: institutionA, teacherId: teacherA }, { name: 'Terbit' }),
  );
  t.equal(draft.status, 201);
  t.equal((await owner('POST', `/api/courses/${live.body.courseId}/publication`)).status, 200);

  /** Every authoring route on a course, as (method, url, body). */
  const attempts = (course: { courseId: number; document: { modules: { id: number; chapters: { id: number }[] }[] } }) => {
    const m = course.document.modules[0];
    const ch = m.chapters[0];
    return [
      ['GET', `/api/courses/${course.courseId}/document`, undefined],
      [
        'PUT',
        `/api/courses/${course.courseId}/document`,
        sampleDocument({ institutionId: institutionA, teacherId: teacherA }, { name: 'Diambil' }),
      ],
      ['PATCH', `/api/courses/${course.courseId}`, { name: 'Diambil alih' }],
      ['POST', `/api/courses/${course.courseId}/modules`, { name: 'Modul asing' }],
      ['PATCH', `/api/modules/${m.id}`, { name: 'x' }],
      ['DELETE', `/api/modules/${m.id}`, undefined],
      ['POST', `/api/modules/${m.id}/chapters`, { name: 'x' }],
      ['PATCH', `/api/chapters/${ch.id}`, { content: '<script>alert(1)</script>' }],
      ['DELETE', `/api/chapters/${ch.id}`, undefined],
      ['PUT', `/api/chapters/${ch.id}/quiz`, sampleQuiz('x')],
      ['DELETE', `/api/chapters/${ch.id}/quiz`, undefined],
      ['PUT', `/api/modules/${m.id}/quiz`, sampleQuiz('x')],
      ['DELETE', `/api/modules/${m.id}/quiz`, undefined],
      ['PUT', `/api/courses/${course.courseId}/final-exam`, sampleQuiz('x')],
      ['DELETE', `/api/courses/${course.courseId}/final-exam`, undefined],
      ['PUT', `/api/courses/${course.courseId}/outline`, { modules: [] }],
      ['GET', `/api/courses/${course.courseId}/publication`, undefined],
      ['POST', `/api/courses/${course.courseId}/publication`, undefined],
      ['DELETE', `/api/courses/${course.courseId}/publication`, undefined],
      ['GET', `/api/courses/${course.courseId}/history`, undefined],
    ] as const;
  };
  const snapshot = async () =>
    JSON.stringify(
      await Promise.all([draft, live].map(async (c) => (await owner('GET', `/api/courses/${c.body.courseId}/document`)).body.document)),
    );
  const before = await snapshot();

  const strangers: [string, Author][] = [
    ['teacher B (same institution)', await bySession(app, teacherB.id)],
    ["another institution's admin", await bySession(app, adminB.id)],
    ['a member', await bySession(app, member.id)],
    ['partner B (bound to another institution)', byPartner(app, partnerB)],
  ];
  for (const [who, as] of strangers) {
    // A member is refused by role, before anything is looked up: 403 whether the course exists, is a draft or is live.
    const onDraft = who === 'a member' ? 403 : 404;
    for (const [course, expected, kind] of [
      [draft.body, onDraft, 'draft'],
      [live.body, 403, 'published course'],
    ] as const) {
      for (const [method, url, body] of attempts(course)) {
        const res = await as(method, url, body);
        t.equal(res.status, expected, `${who}: ${method} ${url} on a ${kind}: ${res.status}`);
        t.equal(res.body.success, false);
        t.notMatch(JSON.stringify(res.body), /Draf|isCorrect|correctAnswer/, 'nothing of the course in the refusal');
      }
    }
    const imported = await as('POST', '/api/course-documents', sampleDocument({ institutionId: institutionA, teacherId: teacherA }));
    t.equal(imported.status, 403, `${who}: import into institution A`);
  }
  // Teacher B may not import a course owned by teacher A either, even in their own institution.
  const asB = await bySession(app, teacherB.id);
  t.equal((await asB('POST', '/api/course-documents', sampleDocument({ institutionId: institutionA, teacherId: teacherA }))).status, 403);

  // The owner's own API key: authoring takes people and partners, not integrations.
  const key = await apiKeyFor(db.db, teacherA);
  for (const [method, url, body] of attempts(draft.body)) {
    const res = await app.inject({
      method,
      url,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    t.equal(res.statusCode, 403, `API key: ${method} ${url}`);
  }

  // No credentials: 401. A session without the CSRF header (a cross-site form): 403.
  const url = `/api/courses/${draft.body.courseId}`;
  t.equal((await app.inject({ method: 'PATCH', url, payload: { name: 'x' } })).statusCode, 401);
  const cookie = await sessionCookieFor(app, teacherA);
  const crossSite = await app.inject({
    method: 'PATCH',
    url,
    headers: { cookie, 'content-type': 'application/json' },
    payload: { name: 'x' },
  });
  t.equal(crossSite.statusCode, 403, 'a session write without x-requested-with');
  t.match(crossSite.json().error, /Cross-site/);

  // A partner's call that skips the gateway (no credential, or a forged one): 403 before the token is looked at.
  const token = partnerA.token();
  for (const [label, headers] of [
    ['no gateway credential', { authorization: `Bearer ${token}` }],
    ['a forged gateway credential', { authorization: `Bearer ${token}`, 'x-gateway-secret': 'guessed-secret-0123456789' }],
  ] as const) {
    const res = await app.inject({
      method: 'PATCH',
      url,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: { name: 'x' },
    });
    t.equal(res.statusCode, 403, label);
    t.match(res.json().error, /only through the gateway/);
  }
  // A replayed bearer token: its first use works, the second is a 401 whatever the request.
  const once = creationHeaders(partnerA.token());
  const first = await app.inject({ method: 'PATCH', url, headers: once, payload: { description: 'Sekali' } });
  t.equal(first.statusCode, 200, first.body);
  for (const replay of [
    { method: 'PATCH' as const, payload: { description: 'Dua kali' } },
    { method: 'GET' as const, url: `${url}/document` },
  ]) {
    const res = await app.inject({
      method: replay.method,
      url: replay.url ?? url,
      headers: once,
      ...(replay.payload ? { payload: replay.payload } : {}),
    });
    t.equal(res.statusCode, 401, `replayed token: ${replay.method}`);
    t.equal(res.json().error, 'Token has already been used.');
  }
  // A sign-in token (a member's SSO token) is not an authoring token.
  const sso = partnerA.token(undefined, { email: 'm@example.test', membershipId: 'M-1' });
  t.equal((await app.inject({ method: 'PATCH', url, headers: creationHeaders(sso), payload: { name: 'x' } })).statusCode, 401);
  t.equal(
    (await app.inject({ method: 'PATCH', url, headers: { 'x-gateway-secret': TEST_GATEWAY_SECRET }, payload: { name: 'x' } })).statusCode,
    401,
  );

  // Only the one partner write above changed anything.
  const after = JSON.parse(await snapshot());
  const expected = JSON.parse(before);
  expected[0].course.description = 'Sekali';
  t.same(after, expected, 'no attacker changed either course');

  // Those who may: the owner, an admin of the institution, a super_admin, the bound partner.
  for (const [who, as] of [
    ['owner', owner],
    ['admin of the institution', await bySession(app, adminA.id)],
    ['super_admin', await bySession(app, superAdmin.id)],
    ['bound partner', byPartner(app, partnerA)],
  ] as const) {
    const res = await as('PATCH', url, { instructor: who });
    t.equal(res.status, 200, `${who} may`);
    t.equal((await as('GET', `${url}/history?limit=1`)).body.events[0].changes[0].to, who, `${who} reads the history`);
  }
  const history = (await owner('GET', `${url}/history`)).body.events;
  t.match(history[0], { credential: 'partner-token', actor: { partnerIssuer: partnerA.issuer, partnerSubject: 'member', tokenId: /.+/ } });
  t.match(history[1], { credential: 'session', actor: { userId: superAdmin.id, role: 'super_admin' } });
  t.match(history[2], { credential: 'session', actor: { userId: adminA.id, role: 'admin' } });
});

t.test('hostile bodies: limits, half-valid documents, 10 MB, crafted fields', async (t) => {
  const { app, db } = await buildTestApp(t);
  const partner = await makeCourseCreator(db.db, 'partner.example');
  const owner = { institutionId: partner.institutionId, teacherId: partner.teacherId };
  const as = await bySession(app, partner.teacherId);
  const courseCount = async () => (await db.db.select({ n: count() }).from(courses))[0]!.n;
  const created = await as('POST', '/api/course-documents', sampleDocument(owner));
  const courseId = created.body.courseId as number;
  const exported = async () => JSON.stringify((await as('GET', `/api/courses/${courseId}/document`)).body.document);
  const before = await exported();
  const coursesBefore = await courseCount();

  // A document valid but for one question deep inside: nothing is created, the 400 names the place.
  const half = sampleDocument(owner);
  (half.modules[1].chapters[1].quiz!.questions[0] as Record<string, unknown>).options = [{ id: 'a', text: 'only one', isCorrect: true }];
  const halfValid = await as('POST', '/api/course-documents', half);
  t.equal(halfValid.status, 400);
  t.match(halfValid.body.details, [{ path: 'modules.1.chapters.1.quiz.questions.0.options' }]);
  t.equal(await courseCount(), coursesBefore, 'nothing created');
  // The same over an existing course: the course is as it was.
  const replaceHalf = await as('PUT', `/api/courses/${courseId}/document`, { ...half, course: { ...half.course, name: 'Setengah' } });
  t.equal(replaceHalf.status, 400);
  t.equal(await exported(), before, 'nothing replaced');
  // Valid in shape, wrong against the database: an id of another course, a category that does not exist.
  const other = await as('POST', '/api/course-documents', sampleDocument(owner, { name: 'Lain' }));
  const foreign = JSON.parse(before);
  foreign.modules[0].chapters[0].id = other.body.document.modules[0].chapters[0].id;
  foreign.course.categoryId = 999_999;
  foreign.course.name = 'Dicampur';
  const mixed = await as('PUT', `/api/courses/${courseId}/document`, foreign);
  t.equal(mixed.status, 400);
  t.match(mixed.body.error, /no category 999999/);
  const foreignOnly = JSON.parse(before);
  foreignOnly.modules[0].chapters[0].id = other.body.document.modules[0].chapters[0].id;
  const stolen = await as('PUT', `/api/courses/${courseId}/document`, foreignOnly);
  t.equal(stolen.status, 400);
  t.match(stolen.body.details, [{ path: 'modules.0.chapters.0.id', message: /is not a chapter of this course/ }]);
  t.equal(await exported(), before, "a document with another course's ids changes nothing");

  // 10 MB: 413 naming the limit, before anything is parsed.
  const huge = sampleDocument(owner);
  huge.modules[0].chapters[0].content = 'x'.repeat(10 * 1024 * 1024);
  const tooBig = await as('POST', '/api/course-documents', huge);
  t.equal(tooBig.status, 413);
  t.equal(tooBig.body.error, `Request body is too large: this route takes at most ${app.config.AUTHORING_BODY_LIMIT_BYTES} bytes`);
  t.equal(await courseCount(), coursesBefore + 1, 'nothing created');

  // Each limit is a 400 that names it.
  const longContent = sampleDocument(owner);
  longContent.modules[0].chapters[0].content = 'x'.repeat(100_001);
  const content = await as('POST', '/api/course-documents', longContent);
  t.equal(content.status, 400);
  t.match(content.body.error, /modules\.0\.chapters\.0\.content: at most 100000 characters of Markdown \(the chapter content limit\)/);
  const tooManyQuestions = await as('PUT', `/api/courses/${courseId}/final-exam`, sampleQuiz('Besar', { questions: 101 }));
  t.equal(tooManyQuestions.status, 400);
  t.match(tooManyQuestions.body.error, /questions: at most 100 questions per quiz \(the questions-per-quiz limit\)/);
  const manyChapters = await as('POST', '/api/course-documents', sampleDocument(owner, { modules: 3, chapters: 67, quizzes: false }));
  t.equal(manyChapters.status, 400);
  t.match(manyChapters.body.error, /201 chapters: at most 200 chapters per course \(the chapters-per-course limit\)/);
  const full = await as('POST', '/api/course-documents', sampleDocument(owner, { modules: 2, chapters: 100, quizzes: false }));
  t.equal(full.status, 201, 'exactly 200 chapters is allowed');
  const one = await as('POST', `/api/modules/${full.body.document.modules[0].id}/chapters`, { name: 'Satu lagi' });
  t.equal(one.status, 400);
  t.match(one.body.error, /already has 200 chapters.*chapters-per-course limit/);

  // Crafted fields: unknown keys, NUL, a javascript: cover, a key that does not name the right option.
  for (const [label, patch, field] of [
    ['unknown field', { isPublished: true }, 'isPublished'],
    ['NUL', { name: 'Etika\u0000' }, 'name'],
    ['javascript: cover', { coverPicture: 'javascript:alert(1)' }, 'coverPicture'],
    ['price below 0', { price: '-1' }, 'price'],
    ['KUM over the column', { nilaiKum: 1e9 }, 'nilaiKum'],
    ['dates out of order', { startDate: '2027-01-02T00:00:00Z', endDate: '2027-01-01T00:00:00Z' }, 'endDate'],
  ] as const) {
    const res = await as('PATCH', `/api/courses/${courseId}`, patch);
    t.equal(res.status, 400, `${label}: ${JSON.stringify(res.body)}`);
    t.ok(
      res.body.details.some((d: { path: string }) => d.path === field),
      `${label}: names ${field}`,
    );
  }
  const badKey = sampleQuiz('Kunci');
  (badKey.questions[0] as Record<string, unknown>).correctAnswer = 'b';
  t.equal((await as('PUT', `/api/courses/${courseId}/final-exam`, badKey)).status, 400, 'a correctAnswer that is not the right option');
  const lateEnd = await as('PATCH', `/api/courses/${courseId}`, { endDate: '2000-01-01T00:00:00Z', startDate: null });
  t.equal(lateEnd.status, 200, 'an end alone is fine');
  const early = await as('PATCH', `/api/courses/${courseId}`, { startDate: '2001-01-01T00:00:00Z' });
  t.equal(early.status, 400, 'a start after the stored end is refused, naming endDate');
  t.match(early.body.details, [{ path: 'endDate' }]);
  const deep = `{"name":${'['.repeat(5000)}${']'.repeat(5000)}}`;
  const nested = await app.inject({
    method: 'PATCH',
    url: `/api/courses/${courseId}`,
    headers: { cookie: await sessionCookieFor(app, partner.teacherId), 'x-requested-with': 'test', 'content-type': 'application/json' },
    payload: deep,
  });
  t.equal(nested.statusCode, 400, 'a 5000-deep body is a 400, no 5xx');
  t.equal((await db.db.select().from(courses).where(eq(courses.id, courseId)))[0]!.name, 'Etika Profesi Akuntan');
});
