import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATA_DIR_LOCK_FILE } from '@lms/db';
import t from 'tap';
import { CLI, envWith, runToEnd, SERVER, startServer } from '../helpers/processes.js';

// CI runs this file once (not again in the PostgreSQL pass): the embedded database's writer lock, whatever TEST_DATABASE_URL says.

// The embedded database has one writer. Real processes: an LMS on a data directory, then the
// admin CLI and a second LMS on the same directory. Before the lock, the CLI printed a key that
// never existed (the running LMS's copy of the database won).

t.setTimeout(600_000);

t.test('a running LMS holds its data directory: the CLI and a second LMS are refused, nothing is written', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'lms-writer-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const dataDir = join(dir, 'pglite');
  const env = envWith({ DATA_DIR: dataDir });

  const lms = await startServer(t, env); // seeds the demo data, teacher@demo.lms among them
  const pid = lms.child.pid!;

  const refused = await runToEnd(CLI, ['api-key', 'create', '--email', 'teacher@demo.lms', '--name', 'while running'], env);
  t.equal(refused.code, 1, 'the CLI fails');
  t.equal(refused.out, '', 'and prints no key');
  t.match(refused.err, `in use by process ${pid} (node ${SERVER}`);
  t.match(refused.err, /Stop that process first/);
  t.match(refused.err, /DATABASE_URL/);
  t.notMatch(refused.err, /\n\s+at /, 'no stack trace');

  const second = await runToEnd(SERVER, [], { ...env, PORT: '0', HOST: '127.0.0.1' });
  t.equal(second.code, 1, 'a second LMS on the same directory does not start');
  t.match(second.err, `in use by process ${pid}`);

  lms.child.kill('SIGTERM');
  t.equal(await lms.exited, 0);
  t.notOk(existsSync(join(dataDir, DATA_DIR_LOCK_FILE)), 'the LMS released its lock');

  const list = await runToEnd(CLI, ['api-key', 'list', '--email', 'teacher@demo.lms'], env);
  t.equal(list.code, 0, list.err);
  t.notMatch(list.out, 'while running', 'the refused command wrote nothing');
  const created = await runToEnd(CLI, ['api-key', 'create', '--email', 'teacher@demo.lms', '--name', 'after stop'], env);
  t.equal(created.code, 0, created.err);
  t.match(created.out, /lms_key_/);
  const listed = await runToEnd(CLI, ['api-key', 'list', '--email', 'teacher@demo.lms'], env);
  t.match(listed.out, 'after stop', 'with the LMS stopped the CLI writes, and the write stays');
});

t.test('a lock left by a process that died (SIGKILL) does not block', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'lms-writer-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const dataDir = join(dir, 'pglite');
  const env = envWith({ DATA_DIR: dataDir });
  t.equal((await runToEnd(CLI, ['db', 'migrate'], env)).code, 0);

  const dead = spawnSync(process.execPath, ['-e', '']).pid!;
  const lockFile = join(dataDir, DATA_DIR_LOCK_FILE);
  writeFileSync(
    lockFile,
    JSON.stringify({ pid: dead, command: 'node dist/server.js', startedAt: '2026-11-22T08:00:00.000Z', hostname: hostname() }),
  );
  const migrate = await runToEnd(CLI, ['db', 'migrate'], env);
  t.equal(migrate.code, 0, migrate.err);
  t.notOk(existsSync(lockFile), 'taken over, then released');

  const lms = await startServer(t, env);
  lms.child.kill('SIGKILL');
  t.equal(await lms.exited, 'SIGKILL');
  t.ok(existsSync(lockFile), 'a killed LMS leaves its lock behind');
  const after = await runToEnd(CLI, ['api-key', 'list'], env);
  t.equal(after.code, 0, after.err);
  const restarted = await startServer(t, env);
  restarted.child.kill('SIGTERM');
  t.equal(await restarted.exited, 0, 'and so does the next LMS');
});
