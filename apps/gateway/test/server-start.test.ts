import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

// The built server as an operator starts it: a mistake in its settings stops it with exit code 1
// and one message saying what to fix, never a stack trace (orExit and serveMetrics, @lms/server-kit).

const SERVER = fileURLToPath(new URL('../dist/server.js', import.meta.url));
const DEMO_PARTNERS = fileURLToPath(new URL('../partners.demo.json', import.meta.url));

async function start(env: Record<string, string>) {
  const child = spawn(process.execPath, [SERVER], {
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'warn', SHUTDOWN_DRAIN_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  return { code, out, err };
}

t.test('a bad variable: exit 1 with the variable named, no stack trace', async (t) => {
  const res = await start({ TRUST_PROXY: '1' });
  t.equal(res.code, 1);
  t.match(res.err, /^Invalid configuration:\n {2}TRUST_PROXY: "1" is not a valid CIDR/);
  t.notMatch(res.err, /\n\s+at /, 'no stack trace');
  t.notMatch(res.out, 'Gateway ready');
});

t.test('an invalid partners file: exit 1 with what is wrong in it, no stack trace', async (t) => {
  const file = join(tmpdir(), `gateway-bad-partners-${process.pid}.json`);
  await writeFile(file, JSON.stringify({ partners: [{ iss: '', allowedIps: ['10.0.0.0/8'], lmsUrl: 'http://lms.example' }] }));
  const res = await start({ PARTNERS_FILE: file, GATEWAY_SECRET: 'a-secret-of-enough-length' });
  t.equal(res.code, 1);
  t.match(res.err, `Invalid partners file ${file}:`);
  t.match(res.err, 'iss must be a non-empty string');
  t.notMatch(res.err, /\n\s+at /, 'no stack trace');
});

t.test('a metrics port already taken: exit 1 saying so, rather than serve beside another process', async (t) => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => taken.close(() => resolve())));
  const port = (taken.address() as { port: number }).port;
  const res = await start({ PARTNERS_FILE: DEMO_PARTNERS, METRICS_HOST: '127.0.0.1', METRICS_PORT: String(port) });
  t.equal(res.code, 1);
  t.match(
    res.err,
    `Cannot serve metrics on 127.0.0.1:${port} (EADDRINUSE): set METRICS_PORT to a free port, or 0 for no metrics listener.`,
  );
  t.notMatch(res.err, /\n\s+at /, 'no stack trace');
  t.notMatch(res.out, 'Gateway ready', 'it did not start serving');
});
