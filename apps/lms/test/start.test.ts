import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDb } from '@lms/db/testing';
import { testDatabaseUrl } from './helpers/database.js';
import t from 'tap';
import { CLI, envWith, launch, runToEnd, SERVER } from './helpers/processes.js';

// Four real process starts on an embedded database: give the file room on a loaded machine.
t.setTimeout(600_000);
const KEY = /lms_key_[A-Za-z0-9_-]{43}/;

/** Starts the server, waits for its ready banner, stops it with SIGTERM; returns what it printed. */
async function startAndStop(env: NodeJS.ProcessEnv): Promise<{ banner: string; exitCode: number }> {
  const child = launch(SERVER, [], env);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const closed = new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => {
      const check = () => (/LMS ready at[\s\S]*\n\s*\n/.test(out) ? resolve(true) : setTimeout(check, 50));
      check();
    }),
    closed.then(() => false),
  ]);
  if (ready) child.kill('SIGTERM');
  const exitCode = await closed;
  return { banner: out, exitCode };
}

t.test('first start on the embedded database migrates, seeds and shows the demo key; restarts keep it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'lms-start-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const dataDir = join(dir, 'data', 'pglite');
  const env = envWith({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' });

  const first = await startAndStop(env);
  t.equal(first.exitCode, 0, 'SIGTERM ends it cleanly');
  t.match(first.banner, 'Empty database: adding the demo data');
  t.match(first.banner, `embedded PGlite in ${dataDir}`);
  t.match(first.banner, '/docs');
  const key = KEY.exec(first.banner)?.[0];
  t.ok(key, 'the demo API key is printed');
  const file = join(dataDir, 'demo-api-key.txt');
  t.equal((await readFile(file, 'utf8')).trim(), key, 'and kept in the data directory');
  t.equal((await stat(file)).mode & 0o777, 0o600, 'readable by the owner only');
  t.match(
    first.banner,
    /"level":40,.*"msg":"GATEWAY_SECRET is not set: partner SSO sign-ins and course creation are refused/,
    'without GATEWAY_SECRET: a warning at start',
  );

  const second = await startAndStop({ ...env, GATEWAY_SECRET: 'start-test-gateway-secret' });
  t.equal(second.exitCode, 0);
  t.notMatch(second.banner, 'GATEWAY_SECRET is not set', 'with it: no warning');
  t.notMatch(second.banner, 'Empty database', 'data kept: no second seed');
  t.equal(KEY.exec(second.banner)?.[0], key, 'the same key is shown again');

  // The admin CLI reads the same DATA_DIR: it sees the seeded data and the key works for it.
  const list = await runToEnd(CLI, ['api-key', 'list', '--email', 'teacher@demo.lms'], env);
  t.equal(list.code, 0, list.err);
  t.match(list.out, key!.slice(0, 14));
  const again = await runToEnd(CLI, ['seed', 'demo'], env);
  t.equal(again.code, 0, again.err);
  t.equal(again.out, '', 'seed demo on the seeded database prints no new key');
});

// The suite runs twice (PGlite, then PostgreSQL with TEST_DATABASE_URL); this case needs the latter.
if (testDatabaseUrl)
  t.test('with DATABASE_URL the demo data is not added unless asked', async (t) => {
    const db = await createTestDb(testDatabaseUrl);
    t.teardown(() => db.destroy());
    const env = envWith({ DATABASE_URL: db.url!, PORT: '0', HOST: '127.0.0.1' });
    const plain = await startAndStop(env);
    t.equal(plain.exitCode, 0);
    t.match(plain.banner, 'database: PostgreSQL');
    t.notMatch(plain.banner, 'Empty database');

    const seeded = await startAndStop({ ...env, SEED_DEMO_ON_EMPTY: 'true' });
    t.match(seeded.banner, 'Empty database: adding the demo data');
    t.match(seeded.banner, /shown once.*lms_key_/);
    const restarted = await startAndStop({ ...env, SEED_DEMO_ON_EMPTY: 'true' });
    t.notMatch(restarted.banner, KEY, 'PostgreSQL keeps no clear key: shown only on the seeding start');
  });

t.test('a bad setting stops the start with a message naming the variable', async (t) => {
  const r = await runToEnd(SERVER, [], envWith({ PORT: 'eighty' }));
  t.equal(r.code, 1);
  t.match(r.err, 'PORT');
});
