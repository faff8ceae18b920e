import { Writable } from 'node:stream';
import { users } from '@lms/db';
import { sql } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { buildTestApp } from './helpers/app.js';
import { makeUser } from './helpers/fixtures.js';

// The LMS's logger keeps the values of failed SQL statements (members' e-mails, membership ids)
// out of every line: Drizzle's "Failed query: <sql>\nparams: <values>" keeps its SQL and SQLSTATE,
// loses its values, in the message, the stack and the fields; PostgreSQL's own texts that quote a
// value (a unique violation's detail, a refused input) lose it too. Real errors from the database.

async function loggingApp(t: Test) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const { app } = await buildTestApp(t, { deps: { logger: { level: 'debug', stream } } });
  return { app, lines };
}

/** The error a statement fails with. */
async function failure(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (err) {
    return err as Error;
  }
  throw new Error('the statement did not fail');
}

t.test("a failed statement's parameters are not logged, its SQL and SQLSTATE are", async (t) => {
  const { app, lines } = await loggingApp(t);
  const email = 'rahasia.member@example.test';
  // 22P02: PostgreSQL quotes the refused value in its message, Drizzle lists it under params.
  const err = await failure(() => app.db.execute(sql`select ${email}::int as n`));
  t.match(err.message, email, 'the error itself carries the e-mail (so the test means something)');

  app.log.error({ err }, 'as a field');
  app.log.error(err, 'as the first argument');
  app.log.child({ component: 'x' }).warn({ err }, 'from a child logger');
  const logged = lines.filter((l) => /as a field|as the first argument|from a child logger/.test(l)).map((l) => JSON.parse(l));
  t.equal(logged.length, 3);
  for (const line of logged) {
    t.notMatch(JSON.stringify(line), email, `no e-mail in "${line.msg}"`);
    t.match(line.err.message, /^Failed query: select \$1::int as n/, 'the SQL stays');
    t.match(line.err.message, /invalid input syntax for type integer: "…"/, 'the cause, with the value blanked');
    t.equal(line.err.params, undefined, 'no params field');
    t.match(line.err.stack, /^\w+: Failed query: select \$1::int as n\n\s+at /, 'the stack starts with the SQL, then the frames');
  }
});

t.test("a unique violation's detail (which quotes the row) is not logged; the constraint is", async (t) => {
  const { app, lines } = await loggingApp(t);
  const taken = await makeUser(app.db, { email: 'dipakai@example.test' });
  const err = await failure(() => app.db.insert(users).values({ email: taken.email, name: 'x', role: 'student' }));
  app.log.error({ err }, 'duplicate');
  const line = lines.find((l) => l.includes('"duplicate"'))!;
  t.notMatch(line, 'dipakai@example.test');
  const logged = JSON.parse(line);
  t.match(logged.err.message, /duplicate key value violates unique constraint/);
  t.match(logged.err.message, /^Failed query: insert into "users"/);
});

t.test('a request that fails on a statement with an e-mail parameter: 500, and the e-mail in no log line', async (t) => {
  const { app, lines } = await loggingApp(t);
  const email = 'pemicu.galat@example.test';
  app.get('/fail', { config: { public: true } }, async () => app.db.execute(sql`select ${email}::int`));
  const res = await app.inject('/fail');
  t.equal(res.statusCode, 500);
  t.same(res.json(), { success: false, error: 'Internal server error' });
  const unhandled = lines.find((l) => l.includes('unhandled error'));
  t.ok(unhandled, 'the failure is logged');
  t.match(unhandled, /Failed query: select \$1::int/);
  t.same(
    lines.filter((l) => l.includes(email)),
    [],
    'at no level',
  );
});
