import { Redis } from 'ioredis';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { testRedisUrl } from '../helpers/redis.js';
import { asSession, makeCast, makeCourse } from './enrolment-fixtures.js';

/**
 * With REDIS_URL the wrong-code limit is one window for every instance: two LMS instances on one
 * database and one Redis count a learner's code attempts together, so spreading the guesses over
 * instances gains nothing.
 */
t.test('two instances share the wrong-code window through Redis', async (t) => {
  const first = await buildTestApp(t, { config: { REDIS_URL: testRedisUrl } });
  const second = await buildTestApp(t, { config: { REDIS_URL: testRedisUrl }, db: first.db });
  const cast = await makeCast(first.app, first.db.db);
  const course = await makeCourse(first.db.db, cast.teacher, { enrollmentType: 'code', enrollmentCode: 'RIGHT' });
  const redis = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  t.teardown(async () => {
    const keys = await redis.keys(`lms:enrolment-code:${cast.learner.id}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  const enrol = (app: typeof first.app, code: string) =>
    app.inject({
      method: 'POST',
      url: `/api/learning/courses/${course.id}/enrollment`,
      headers: asSession(cast.learner.cookie),
      payload: { code },
    });

  for (let i = 1; i <= 5; i++) {
    const res = await enrol(i % 2 === 0 ? second.app : first.app, `guess-${i}`);
    t.equal(res.statusCode, 400, `wrong code ${i} on instance ${i % 2 === 0 ? 2 : 1}: 400`);
  }
  const keys = await redis.keys(`lms:enrolment-code:${cast.learner.id}:${course.id}`);
  t.equal(keys.length, 1, 'the attempts are counted in Redis, under the learner and the course');
  const sixthOnFirst = await enrol(first.app, 'RIGHT');
  t.equal(sixthOnFirst.statusCode, 429, 'the sixth attempt, on the first instance: 429');
  t.ok(Number(sixthOnFirst.headers['retry-after']) > 0, 'with Retry-After');
  t.equal((await enrol(second.app, 'RIGHT')).statusCode, 429, 'and on the second');
});
