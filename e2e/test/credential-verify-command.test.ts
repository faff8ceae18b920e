import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { freePort } from './helpers/services.js';
import { shellPath } from './helpers/shell-path.js';

// CI runs this file once (not again in the PostgreSQL pass): the README's command and its exit status; verifying reads no database.

// The README's command, `npx -y pnpm@12 run lms-admin credential verify <file>`, as a person types
// it at the repository root: its exit status is the CLI's own (0 valid, 1 not valid, 2 could not
// check), not pnpm's. Issue 40: a nested `pnpm --filter ... run` turned every failure into 1.

t.setTimeout(600_000);

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'lms-credential-verify-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

/** Runs the README's command in the repository root; resolves to the exit code and the output. */
function readmeCommand(args: string[], env: Record<string, string> = {}) {
  const child = spawn('npx', ['-y', 'pnpm@12', 'run', 'lms-admin', 'credential', 'verify', ...args], {
    cwd: root,
    // Nothing of this test runner's environment (a turbo task's variables, the node_modules/.bin
    // directories on PATH) reaches the command.
    env: { PATH: shellPath(), HOME: process.env.HOME ?? '', DATA_DIR: join(dir, 'data'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

/** A credential-shaped JWS naming `iss` (its signature is never reached: the JWKS is asked for first). */
const credentialOf = (iss: string) =>
  [{ alg: 'RS256', kid: 'k1', typ: 'JWT' }, { iss, jti: 'x' }, 'signature']
    .map((part) => Buffer.from(typeof part === 'string' ? part : JSON.stringify(part)).toString('base64url'))
    .join('.');

t.test('exit 2 when the file cannot be read', async (t) => {
  const res = await readmeCommand([join(dir, 'missing.jwt')]);
  t.equal(res.code, 2, res.stderr);
  t.match(res.stderr, /cannot read .*missing\.jwt/);
});

t.test("exit 2 when the issuer's site does not answer; 1 when the credential is another issuer's", async (t) => {
  const silent = `http://127.0.0.1:${await freePort()}/credentials/issuer`;
  const file = join(dir, 'certificate-offline.jwt');
  await writeFile(file, credentialOf(silent));

  const unreachable = await readmeCommand([file, '--issuer', silent]);
  t.equal(unreachable.code, 2, unreachable.stdout + unreachable.stderr);
  t.match(unreachable.stdout, /NOT CHECKED: .*did not answer/);

  // The default expected issuer is this LMS's PUBLIC_URL: that file is not its credential.
  const other = await readmeCommand([file], { PUBLIC_URL: 'http://127.0.0.1:1' });
  t.equal(other.code, 1, other.stdout + other.stderr);
  t.match(other.stdout, `INVALID: issued by "${silent}", not by the expected issuer http://127.0.0.1:1/credentials/issuer`);

  const usage = await readmeCommand([file, '--issuer', 'not a url']);
  t.equal(usage.code, 2, 'a usage error');
});
