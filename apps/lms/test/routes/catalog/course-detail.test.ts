import t from 'tap';
import { findAnswerKeys } from '../../helpers/answer-keys.js';
import { buildTestApp } from '../../helpers/app.js';
import {
  enroll,
  makeCategory,
  makeChapter,
  makeCourse,
  makeCourseTree,
  makeModule,
  makeQuestion,
  makeQuiz,
} from '../../helpers/catalog-fixtures.js';
import { makeRoleCast } from '../../helpers/cast.js';
import { apiKeyFor, makeInstitution } from '../../helpers/fixtures.js';

const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
const institutionId = await makeInstitution(db);
const {
  teacher: owner,
  otherTeacher,
  admin,
  superAdmin,
  student,
} = await makeRoleCast(app, db, { institutionId, teacher: { name: 'Owner Teacher', email: 'owner.teacher@example.test' } });
const category = await makeCategory(db, { code: 'LAW', name: 'Law' });

const course = await makeCourse(db, {
  institutionId,
  teacherId: owner.id,
  name: 'Ordered Course',
  categoryId: category.id,
  price: '250000.00',
  priceNonMember: '300000.50',
  nilaiKum: 4,
  coverPicture: 'https://cdn.example.test/c.png',
  startDate: new Date('2026-01-01T00:00:00Z'),
  endDate: new Date('2026-06-30T00:00:00Z'),
  academics: { credits: '3', workload: '4h/week' },
  careers: { outcomes: 'Lawyer', averageSalary: 'high' },
});
// Inserted out of order: the response must follow orderIndex, not insertion.
const second = await makeModule(db, course.id, { name: 'Second module', orderIndex: 2 });
const first = await makeModule(db, course.id, { name: 'First module', orderIndex: 1 });
const ch3 = await makeChapter(db, first, { name: 'Chapter C', orderIndex: 3 });
const ch1 = await makeChapter(db, first, { name: 'Chapter A', orderIndex: 1 });
const ch2 = await makeChapter(db, first, { name: 'Chapter B', orderIndex: 2 });
const quizA = await makeQuiz(db, { courseId: course.id, scope: 'chapter', moduleId: first.id, chapterId: ch1.id, name: 'Quiz A' });
await makeQuestion(db, quizA.id, { orderIndex: 2, questionText: 'Q2' });
await makeQuestion(db, quizA.id, { orderIndex: 1, questionText: 'Q1' });
const moduleQuiz = await makeQuiz(db, { courseId: course.id, scope: 'module', moduleId: second.id, name: 'Module quiz' });
await makeQuestion(db, moduleQuiz.id, { questionText: 'MQ' });
await makeQuiz(db, { courseId: course.id, scope: 'final', name: 'Final' });
await enroll(db, student.id, course.id);
await enroll(db, admin.id, course.id);

const draft = await makeCourse(db, { institutionId, teacherId: owner.id, name: 'Draft', isPublished: false });
await makeCourseTree(db, draft.id, [1]);
const eventless = await makeCourse(db, { institutionId, teacherId: owner.id, name: 'Eventless', eventCode: null });

const ownerKey = await apiKeyFor(db, owner.id);
const otherKey = await apiKeyFor(db, otherTeacher.id);
const as = {
  ownerKey: { 'x-api-key': ownerKey },
  otherKey: { 'x-api-key': otherKey },
  owner: { cookie: owner.cookie },
  otherTeacher: { cookie: otherTeacher.cookie },
  admin: { cookie: admin.cookie },
  superAdmin: { cookie: superAdmin.cookie },
  student: { cookie: student.cookie },
};
const get = (id: string | number, headers: Record<string, string>) => app.inject({ url: `/api/courses/${id}`, headers });

t.test('401 without credentials, 400 for a non-numeric id, 404 for an unknown one', async (t) => {
  const none = await get(course.id, {});
  t.equal(none.statusCode, 401);
  t.equal(none.json().success, false);
  for (const bad of ['abc', '1.5', '-1', '1e3', '0x1', '%20']) {
    const res = await get(bad, as.ownerKey);
    t.equal(res.statusCode, 400, `id ${bad}`);
    t.same(res.json(), { success: false, error: res.json().error });
    t.match(res.json().error, /'id'/);
  }
  for (const unknown of ['999999', '2147483648', '99999999999999999999', '0']) {
    const res = await get(unknown, as.ownerKey);
    t.equal(res.statusCode, 404, `id ${unknown}`);
    t.same(res.json(), { success: false, error: 'Course not found' });
  }
});

t.test('a course that is not buyer-visible: 404 except for its owner and a super_admin, by session', async (t) => {
  for (const hidden of [draft, eventless]) {
    for (const [who, headers] of Object.entries({
      ownerKey: as.ownerKey,
      otherKey: as.otherKey,
      otherTeacher: as.otherTeacher,
      admin: as.admin,
      student: as.student,
    })) {
      const res = await get(hidden.id, headers);
      t.equal(res.statusCode, 404, `${hidden.name} for ${who}`);
      t.same(res.json(), { success: false, error: 'Course not found' });
    }
    t.equal((await get(hidden.id, as.owner)).statusCode, 200, `${hidden.name} for its owner`);
    t.equal((await get(hidden.id, as.superAdmin)).statusCode, 200, `${hidden.name} for a super_admin`);
  }
  for (const headers of Object.values(as)) t.equal((await get(course.id, headers)).statusCode, 200, 'a buyer-visible course: everyone');
});

t.test('CourseDetail: every field, prices as text, tree in orderIndex order', async (t) => {
  // An admin of the course's institution reads the whole tree, without answer keys.
  const res = await get(course.id, as.admin);
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.equal(body.success, true);
  const c = body.course;
  t.match(c, {
    id: course.id,
    name: 'Ordered Course',
    description: course.description,
    instructor: course.instructor,
    type: 'self_paced',
    enrollmentType: 'code',
    startDate: '2026-01-01T00:00:00.000Z',
    endDate: '2026-06-30T00:00:00.000Z',
    teacherId: owner.id,
    institutionId,
    categoryId: category.id,
    courseCode: course.courseCode,
    eventCode: course.eventCode,
    isPublished: true,
    nilaiKum: 4,
    coverPicture: 'https://cdn.example.test/c.png',
    isPurchasable: true,
    price: '250000.00',
    priceNonMember: '300000.50',
    priceMahasiswa: null,
    currency: 'IDR',
    previewMode: false,
    createdAt: course.createdAt.toISOString(),
    updatedAt: course.updatedAt.toISOString(),
    teacherName: 'Owner Teacher',
    teacherEmail: 'owner.teacher@example.test',
    category: { id: category.id, code: 'LAW', name: 'Law' },
    enrollmentCount: 2,
    studentCount: 2,
    admissions: null,
    academics: { credits: '3', workload: '4h/week' },
    tuitionAndFinancing: null,
    careers: { outcomes: 'Lawyer', averageSalary: 'high' },
    studentExperience: null,
  });
  t.same(
    c.modules.map((m: { name: string }) => m.name),
    ['First module', 'Second module'],
  );
  const [m1, m2] = c.modules;
  t.match(m1, { id: first.id, courseId: course.id, orderIndex: 1, description: '' });
  t.type(m1.createdAt, 'string');
  t.same(
    m1.chapters.map((ch: { name: string }) => ch.name),
    ['Chapter A', 'Chapter B', 'Chapter C'],
  );
  t.same(m2.chapters, []);
  t.match(m1.chapters[0], { id: ch1.id, moduleId: first.id, content: ch1.content, orderIndex: 1 });
  void [ch2, ch3];
  const quizzes = m1.chapters[0].quizzes;
  t.equal(quizzes.length, 1);
  t.match(quizzes[0], { id: quizA.id, chapterId: ch1.id, name: 'Quiz A', quizType: 'multiple_choice', minimumScore: 70, timeLimit: 30 });
  t.same(
    quizzes[0].questions.map((q: { questionText: string }) => q.questionText),
    ['Q1', 'Q2'],
  );
  t.same(quizzes[0].questions[0], {
    id: quizzes[0].questions[0].id,
    quizId: quizA.id,
    questionText: 'Q1',
    questionType: 'multiple_choice',
    options: [
      { id: 'a', text: 'Right' },
      { id: 'b', text: 'Wrong' },
    ],
    orderIndex: 1,
    points: 2,
  });
  t.equal(c.moduleQuizzes.length, 1, 'module-level quizzes, the final exam not among them');
  t.match(c.moduleQuizzes[0], { id: moduleQuiz.id, chapterId: null, name: 'Module quiz' });
  t.equal(c.moduleQuizzes[0].questions[0].questionText, 'MQ');
  t.same(m2.chapters, [], 'a module without chapters');
});

t.test('answer keys: absent at every depth for API keys, students, admins and other teachers', async (t) => {
  for (const [who, headers] of Object.entries({
    ownerKey: as.ownerKey,
    otherKey: as.otherKey,
    student: as.student,
    admin: as.admin,
    otherTeacher: as.otherTeacher,
  })) {
    const res = await get(course.id, headers);
    t.equal(res.statusCode, 200);
    t.same(findAnswerKeys(res.json()), [], `${who}: no answer key anywhere`);
    t.notMatch(res.body, /An essay answer|Because a is right/, `${who}: not even the values`);
  }
});

t.test('answer keys: present for the owner teacher and a super_admin, by session', async (t) => {
  for (const [who, headers, id] of [
    ['owner', as.owner, course.id],
    ['superAdmin', as.superAdmin, course.id],
    ['owner (draft)', as.owner, draft.id],
  ] as const) {
    const res = await get(id, headers);
    t.equal(res.statusCode, 200);
    const c = res.json().course;
    const question = c.modules[0].chapters[0].quizzes[0].questions[0];
    t.match(question, { correctAnswer: 'a', essayAnswer: 'An essay answer', explanation: 'Because a is right' }, who);
    t.same(question.options, [
      { id: 'a', text: 'Right', isCorrect: true },
      { id: 'b', text: 'Wrong', isCorrect: false },
    ]);
    t.match(c.moduleQuizzes[0].questions[0], { correctAnswer: 'a' });
    t.ok(findAnswerKeys(res.json()).length >= 4, 'the walker that finds none for others finds these');
  }
});
