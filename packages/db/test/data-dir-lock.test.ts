import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createDb } from '../src/client.js';
import { DATA_DIR_LOCK_FILE, DataDirLockedError, lockDataDir } from '../src/data-dir-lock.js';

// CI runs this file once (not again in the PostgreSQL pass): the embedded database's writer lock, whatever TEST_DATABASE_URL says.

// An embedded data directory has one writer: its lock file. The cases with two real processes
// (a running LMS and the admin CLI) are in apps/lms/test/cli/data-dir-lock.test.ts.

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lms-lock-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'pglite');
}

/** The pid of a process that has just ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid!;
}

t.test('the database holds its directory while open; a second open is refused; close releases it', async (t) => {
  const dir = await tempDir(t);
  const first = createDb({ dataDir: dir });
  const lockFile = join(dir, DATA_DIR_LOCK_FILE);
  const owner = JSON.parse(readFileSync(lockFile, 'utf8'));
  t.equal(owner.pid, process.pid);
  t.match(owner.command, /node/);
  t.ok(Date.parse(owner.startedAt));
  t.throws(() => createDb({ dataDir: dir }), DataDirLockedError, 'a second handle in the same process');
  await first.close();
  t.notOk(existsSync(lockFile), 'released on close');
  const second = createDb({ dataDir: dir });
  t.ok(existsSync(lockFile));
  await second.close();
});

t.test('a lock of a live process is refused with who holds it and what to do', async (t) => {
  const dir = await tempDir(t);
  await createDb({ dataDir: dir }).close();
  // The parent of this test process: alive, and not us.
  const holder = { pid: process.ppid, command: 'node dist/server.js', startedAt: '2026-11-22T08:00:00.000Z', hostname: hostname() };
  writeFileSync(join(dir, DATA_DIR_LOCK_FILE), JSON.stringify(holder));
  const err = t.throws(() => lockDataDir(dir)) as DataDirLockedError;
  t.type(err, DataDirLockedError);
  t.match(err.message, `in use by process ${process.ppid} (node dist/server.js, running since 2026-11-22T08:00:00.000Z)`);
  t.match(err.message, /Stop that process/);
  t.match(err.message, /DATABASE_URL/);
  t.same(JSON.parse(readFileSync(join(dir, DATA_DIR_LOCK_FILE), 'utf8')), holder, 'the holder keeps its lock');
});

t.test('a lock whose process is gone is taken over', async (t) => {
  const dir = await tempDir(t);
  await createDb({ dataDir: dir }).close();
  const lockFile = join(dir, DATA_DIR_LOCK_FILE);

  writeFileSync(
    lockFile,
    JSON.stringify({ pid: deadPid(), command: 'node dist/server.js', startedAt: '2026-11-22T08:00:00.000Z', hostname: hostname() }),
  );
  const afterCrash = lockDataDir(dir);
  t.equal(JSON.parse(readFileSync(lockFile, 'utf8')).pid, process.pid, 'a dead pid');
  afterCrash.release();

  if (existsSync('/proc/self/stat')) {
    // A live pid that started at another time: the pid was reused by another process.
    const reused = { pid: process.ppid, command: 'node dist/server.js', startedAt: 'x', hostname: hostname(), processStart: '1' };
    writeFileSync(lockFile, JSON.stringify(reused));
    const taken = lockDataDir(dir);
    t.equal(JSON.parse(readFileSync(lockFile, 'utf8')).pid, process.pid, 'a reused pid');
    taken.release();
    const ourOldPid = { pid: process.pid, command: 'node dist/server.js', startedAt: 'x', hostname: hostname() };
    writeFileSync(lockFile, JSON.stringify(ourOldPid));
    const again = lockDataDir(dir);
    t.ok(JSON.parse(readFileSync(lockFile, 'utf8')).processStart, 'our own pid from an earlier process (PID 1 of a restarted container)');
    again.release();
  }
  t.notOk(existsSync(lockFile));
});
