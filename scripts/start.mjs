// `pnpm run start`: the LMS, the gateway and the example partner backend (turbo run start), with
// a GATEWAY_SECRET they share. The gateway proves each SSO sign-in to the LMS with it and sends
// it with forwarded course creations; without one both are refused. When the environment has
// none, a fresh random one is made for this run, so a newcomer has nothing to set (it only has
// to be the same in both apps, never to survive a restart).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

const env = { ...process.env };
if (!env.GATEWAY_SECRET) {
  env.GATEWAY_SECRET = randomBytes(32).toString('base64url');
  console.error('GATEWAY_SECRET is not set: the LMS and the gateway share a fresh random one for this run.');
}

const turbo = spawn('turbo', ['run', 'start', ...process.argv.slice(2)], { stdio: 'inherit', env });
turbo.on('error', (err) => {
  console.error(`cannot run turbo: ${err.message} (run this through pnpm: pnpm run start)`);
  process.exit(1);
});
turbo.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
