import t from 'tap';
import { teacherWithSampleCourse } from '../../helpers/authoring.js';
import { probeHealth } from '../../helpers/event-loop.js';
import { sessionCookieFor } from '../../helpers/fixtures.js';

// Crafted imports over real HTTP to a real server while a load balancer asks /healthz, as
// under-attack.test.ts does for course documents: deep braces, 100,000 lines, NUL and a 10 MB
// body, one after the other for a few seconds. Each is a 400 or 413 and every health check is
// answered (each parser is one pass over at most 1,000,000 characters).

const ATTACK_MS = 4_000;
const HEALTH_BOUND_MS = 1_000;

t.test('health checks answer while an author sends crafted imports', async (t) => {
  const { app, teacher, courseId } = await teacherWithSampleCourse(t);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const cookie = await sessionCookieFor(app, teacher.id);
  const bodies: [string, number][] = [
    [JSON.stringify({ format: 'gift', text: `Q ${'{'.repeat(450_000)}${'}'.repeat(450_000)}` }), 400],
    [JSON.stringify({ format: 'csv', text: `question,answer\n${'Q,A\n'.repeat(100_000)}` }), 400],
    [JSON.stringify({ format: 'aiken', text: `${'Q\nA. x\nB. y\nANSWER: A\n'.repeat(30_000)}`.slice(0, 999_000) }), 400],
    [JSON.stringify({ format: 'gift', text: 'x'.repeat(10_000_000) }), 413],
  ];
  const until = performance.now() + ATTACK_MS;
  const seen: [number, number][] = [];
  const attacker = async () => {
    for (let i = 0; performance.now() < until; i++) {
      const [body, expected] = bodies[i % bodies.length]!;
      const res = await fetch(`${base}/api/courses/${courseId}/question-imports`, {
        method: 'POST',
        headers: { cookie, 'x-requested-with': 'attack', 'content-type': 'application/json' },
        body,
      }).catch(() => null);
      seen.push([res?.status ?? 0, expected]);
      await res?.arrayBuffer().catch(() => undefined);
    }
  };
  const [, { times: healthTimes, statuses: healthStatuses }] = await Promise.all([attacker(), probeHealth(base, until)]);
  const slowest = Math.max(...healthTimes);
  t.comment(`${seen.length} crafted imports, ${healthTimes.length} health checks, slowest ${slowest.toFixed(0)} ms`);
  t.ok(seen.length >= bodies.length, `every crafted kind sent (${seen.length})`);
  t.same(
    seen.filter(([status, expected]) => status !== expected),
    [],
    'each answered 400 (or 413 for 10 MB), never a 5xx',
  );
  t.ok(healthTimes.length >= 3, `${healthTimes.length} health checks during the attack`);
  t.ok(
    healthStatuses.every((s) => s === 200),
    'every health check answered 200',
  );
  t.ok(slowest < HEALTH_BOUND_MS, `the slowest health check took ${slowest.toFixed(0)} ms`);
});
