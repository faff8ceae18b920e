import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join, resolve } from 'node:path';

/** The lock file an embedded database's writer keeps in its data directory. */
export const DATA_DIR_LOCK_FILE = 'lms-writer.lock';

/** Who holds a data directory: what the lock file says. */
export interface DataDirLockOwner {
  pid: number;
  /** The command line of the holder, e.g. `node dist/server.js`. */
  command: string;
  startedAt: string;
  hostname: string;
  /** Linux: the process's start time in clock ticks since boot (/proc/<pid>/stat), to tell a reused pid. */
  processStart?: string;
  /** Linux: the boot the process ran in (a pid from before a reboot is not the same process). */
  bootId?: string;
}

/** The data directory is held by another live process (or by this one already). */
export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  constructor(
    readonly dataDir: string,
    readonly owner: DataDirLockOwner | null,
  ) {
    const who = owner
      ? `process ${owner.pid} (${owner.command}, running since ${owner.startedAt}${owner.hostname === hostname() ? '' : ` on host ${owner.hostname}`})`
      : 'another process (it is writing its lock file right now)';
    const gone =
      owner && owner.hostname !== hostname() ? `\nIf that process no longer runs, delete ${join(dataDir, DATA_DIR_LOCK_FILE)}.` : '';
    super(
      `The embedded database in ${dataDir} is in use by ${who}.\n` +
        'It has one writer at a time: what a second process wrote there would be lost. Stop that process ' +
        'first (Ctrl-C, or SIGTERM to the LMS), then run this again; or give both PostgreSQL with DATABASE_URL.' +
        gone,
    );
  }
}

/** Lock files this process holds, by path: a second open of the same directory here is refused too. */
const heldHere = new Set<string>();

/**
 * Makes this process the only writer of an embedded database directory: creates its lock file
 * atomically (O_EXCL) with the pid, the command line and the start time. A lock whose process is
 * gone (no such pid, or the pid now belongs to another process or another boot) is taken over;
 * a live one is refused with DataDirLockedError. `release()` removes the file (done on close and,
 * if the process exits without closing, on exit; after a SIGKILL the next opener takes it over).
 */
export function lockDataDir(dataDir: string): { release(): void } {
  const dir = resolve(dataDir);
  const file = join(dir, DATA_DIR_LOCK_FILE);
  mkdirSync(dir, { recursive: true });
  if (heldHere.has(file)) throw new DataDirLockedError(dir, ownerOfThisProcess());

  const mine = JSON.stringify(ownerOfThisProcess(), null, 2);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const fd = openSync(file, 'wx', 0o644);
      try {
        writeSync(fd, mine);
      } finally {
        closeSync(fd);
      }
      return holding(file, mine);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const text = readOrNull(file);
    if (text === null) continue; // Released between our open and our read: try again.
    const owner = parseOwner(text);
    if (owner === null) {
      // Unreadable: its writer is between its open and its write (wait a little), or died there
      // (then the file stays as it is: stale once it is a few seconds old).
      if (!olderThan(file, 5_000)) {
        if (attempt === 2) throw new DataDirLockedError(dir, null);
        sleepSync(100);
        continue;
      }
    } else if (isAlive(owner)) {
      throw new DataDirLockedError(dir, owner);
    }
    // Stale: remove it, unless someone else replaced it in the meantime.
    if (readOrNull(file) === text) {
      try {
        unlinkSync(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  }
  throw new DataDirLockedError(dir, parseOwner(readOrNull(file) ?? ''));
}

function holding(file: string, mine: string): { release(): void } {
  heldHere.add(file);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    heldHere.delete(file);
    process.off('exit', release);
    // Only our own lock: never one that a later process took over.
    if (readOrNull(file) === mine) {
      try {
        unlinkSync(file);
      } catch {
        // Already gone.
      }
    }
  };
  process.on('exit', release);
  return { release };
}

function ownerOfThisProcess(): DataDirLockOwner {
  const owner: DataDirLockOwner = {
    pid: process.pid,
    command: [basename(process.execPath), ...process.argv.slice(1)].join(' '),
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    hostname: hostname(),
  };
  const processStart = processStartOf(process.pid);
  const bootId = currentBootId();
  if (processStart) owner.processStart = processStart;
  if (bootId) owner.bootId = bootId;
  return owner;
}

function isAlive(owner: DataDirLockOwner): boolean {
  // Another machine's process (a shared directory) cannot be checked from here: assume it runs.
  if (owner.hostname !== hostname()) return true;
  const bootId = currentBootId();
  if (owner.bootId && bootId && owner.bootId !== bootId) return false;
  if (owner.pid === process.pid) {
    // Our pid but not our lock (heldHere said so): an earlier process that had the same pid,
    // such as PID 1 of a restarted container.
    return false;
  }
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    // EPERM: it exists, under another user.
  }
  const start = processStartOf(owner.pid);
  if (owner.processStart && start && owner.processStart !== start) return false; // The pid was reused.
  return true;
}

/** Field 22 of /proc/<pid>/stat (the start time in ticks since boot), or null off Linux. */
function processStartOf(pid: number): string | null {
  const stat = readOrNull(`/proc/${pid}/stat`);
  if (!stat) return null;
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null;
}

function currentBootId(): string | null {
  return readOrNull('/proc/sys/kernel/random/boot_id')?.trim() || null;
}

function parseOwner(text: string): DataDirLockOwner | null {
  try {
    const value = JSON.parse(text) as Partial<DataDirLockOwner>;
    if (typeof value.pid !== 'number' || !Number.isInteger(value.pid) || value.pid <= 0) return null;
    return {
      pid: value.pid,
      command: String(value.command ?? 'unknown command'),
      startedAt: String(value.startedAt ?? 'an unknown time'),
      hostname: String(value.hostname ?? hostname()),
      ...(typeof value.processStart === 'string' ? { processStart: value.processStart } : {}),
      ...(typeof value.bootId === 'string' ? { bootId: value.bootId } : {}),
    };
  } catch {
    return null;
  }
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function olderThan(file: string, ms: number): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs > ms;
  } catch {
    return true;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
