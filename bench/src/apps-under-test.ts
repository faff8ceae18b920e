import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildReply, ParentRequest } from './ipc.js';
import type { Measurement } from './report.js';

// The apps under test, each in a child process of its own (serve.ts): started, asked questions
// over IPC (CPU used, SQL sent), stopped. Child processes rather than this one: autocannon then
// does not share the event loop of the app it measures.

const here = path.dirname(fileURLToPath(import.meta.url));
export const benchDir = path.resolve(here, '..');

/** The node flags the LMS is deployed with: its Dockerfile's CMD between `node` and the script. */
const LMS_NODE_FLAGS = (() => {
  const cmd = /^CMD (\[.*\])\s*$/m.exec(readFileSync(path.resolve(benchDir, '../apps/lms/Dockerfile'), 'utf8'));
  if (!cmd) throw new Error('apps/lms/Dockerfile has no CMD line');
  return (JSON.parse(cmd[1]) as string[]).slice(1, -1);
})();

export interface Child {
  url: string;
  /** The LMS's session cookie name (null for the gateway). */
  cookieName: string | null;
  proc: ChildProcess;
}

/** The apps under test by URL, so a measurement of a load finds the process that serves it. */
export class AppsUnderTest {
  private readonly byUrl = new Map<string, Child>();

  get(url: string): Child | undefined {
    return this.byUrl.get(url);
  }

  /** An app under test in its own process; resolves with its URL once it listens. */
  start(mode: string, env: Record<string, string>): Promise<Child> {
    const proc = fork(path.join(here, 'serve.js'), [mode], {
      env: { ...process.env, ...env },
      // The LMS runs with the node flags its Dockerfile and `start` give it (apps/lms/Dockerfile).
      execArgv: mode === 'gateway' ? [] : LMS_NODE_FLAGS,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      proc.once('message', (m: ChildReply) => {
        if (m.type !== 'listening') return reject(new Error(`${mode} server said ${m.type} before listening`));
        const child = { url: m.url, cookieName: m.cookieName, proc };
        this.byUrl.set(child.url, child);
        resolve(child);
      });
      proc.once('exit', (code) => reject(new Error(`${mode} server exited (${code}) before listening`)));
    });
  }

  stop(child: Child) {
    this.byUrl.delete(child.url);
    if (child.proc.exitCode === null) child.proc.kill('SIGTERM');
  }

  /** Every app started and not stopped yet. */
  stopAll() {
    for (const child of [...this.byUrl.values()]) this.stop(child);
  }
}

/** One question to an app under test and its answer (one question at a time per child). */
export function ask<T extends ChildReply['type']>(
  child: Child,
  request: ParentRequest,
  expect: T,
): Promise<Extract<ChildReply, { type: T }>> {
  return new Promise((resolve, reject) => {
    child.proc.once('message', (m: ChildReply) => {
      if (m.type === expect) resolve(m as Extract<ChildReply, { type: T }>);
      else reject(new Error(m.type === 'error' ? m.message : `expected ${expect}, got ${m.type}`));
    });
    child.proc.send(request);
  });
}

/** The served process's CPU milliseconds per response over the runs it was put around (warm-ups left out). */
export function cpuMeter(child: Child | undefined) {
  let micros = 0;
  let responses = 0;
  return {
    around: async <T>(run: () => Promise<T>): Promise<T> => {
      if (!child) return run();
      const before = await ask(child, { type: 'stats' }, 'stats');
      const result = await run();
      const after = await ask(child, { type: 'stats' }, 'stats');
      micros += after.cpuMicros - before.cpuMicros;
      responses += after.responses - before.responses;
      return result;
    },
    add: (m: Measurement): Measurement => (responses > 0 ? { ...m, cpuMs: micros / 1000 / responses } : m),
  };
}

/** The served process's CPU milliseconds per response while `run` ran (warm-up included): one cpuMeter around it. */
export async function withCpu<T extends Measurement>(child: Child | undefined, run: () => Promise<T>): Promise<T> {
  const meter = cpuMeter(child);
  return meter.add(await meter.around(run)) as T;
}
