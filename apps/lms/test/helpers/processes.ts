import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';

// The built entry points, as `pnpm run start` and `lms-admin` run them (turbo builds this package
// before its tests): starting them under the TypeScript loader took most of a test's time.
export const SERVER = fileURLToPath(new URL('../../dist/server.js', import.meta.url));
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/**
 * The environment of a fresh shell: no inherited LMS settings, only what the test gives; no drain
 * period on SIGTERM unless the test asks for one (as with `pnpm run start`); no metrics listener
 * unless the test asks for one (the default port would be shared by every test server at once).
 */
export function envWith(vars: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', SHUTDOWN_DRAIN_MS: '0', METRICS_PORT: '0', ...vars };
}

/** Runs a built entry point as its own process. */
export function launch(entry: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [entry, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs a built entry point to its end: exit code, stdout, stderr. */
export async function runToEnd(entry: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = launch(entry, args, env);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  return { code, out, err };
}

/** A loopback port free right now (bound, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>;
}

/**
 * Starts the built LMS on a free loopback port and resolves once its ready banner is printed;
 * rejects (with what it printed) if it ends first. Killed with the test if still running.
 */
export async function startServer(t: Test, env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const port = await freePort();
  const child = launch(SERVER, [], { ...env, PORT: String(port), HOST: '127.0.0.1' });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal ?? -1)));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return exited.then(() => undefined);
  });
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => {
      const check = () => (/LMS ready at[\s\S]*\n\s*\n/.test(out) ? resolve(true) : setTimeout(check, 25));
      check();
    }),
    exited.then(() => false),
  ]);
  if (!ready) throw new Error(`the LMS did not start:\n${out}`);
  return { child, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}
