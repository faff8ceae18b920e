// `pnpm run start`: builds what the servers need, then runs the LMS, the gateway, the demo
// partner backend and (without SMTP_URL) the demo mail catcher, prints one banner once all of them
// answer, and stops all of them on Ctrl-C or SIGTERM.
//
// The servers are spawned here (`node dist/server.js`), not through turbo or pnpm: a signal to
// this one process reaches every server, and nothing in between can leave one running. Each runs
// in a process group of its own, so a terminal's Ctrl-C comes to this script only and the servers
// stop in order; if this script's own parent goes (`kill <pnpm pid>`), it stops them too.
//
// GATEWAY_SECRET: the LMS and the gateway share one. When the environment has none, a fresh
// random one is made for this run (it only has to be the same in both apps).
//
// SMTP_URL: where the LMS sends its e-mails. When the environment has none, the demo mail catcher
// (examples/mail-catcher) runs too and the LMS's SMTP_URL points at it: every e-mail stays on this
// machine and shows on the catcher's page. With SMTP_URL set, the LMS sends through it and no
// catcher runs.
//
// Runtime: the project's Node (package.json devDependencies.node), which `pnpm run start` puts first
// on PATH; on an older Node this script stops at once with a message (scripts/check-node.mjs). The
// build and the servers run on the Node that runs this script, and the banner says which.
//
// Settings of the start itself (everything else goes to the apps as it is):
//   LMS_PORT, GATEWAY_PORT, PARTNER_PORT         3000, 3001, 3002
//   LMS_METRICS_PORT, GATEWAY_METRICS_PORT       9464, 9465 (0: no metrics listener)
//   LMS_PUBLIC_URL, GATEWAY_PUBLIC_URL           http://localhost:<port>
//   MAIL_CATCHER_PORT, MAIL_CATCHER_SMTP_PORT    1080, 1025 (the catcher's page and its SMTP port)
//   PARTNER_DATA_DIR                             the demo partner's key (examples/partner-backend/.data)
//   PARTNERS_FILE                                the gateway's partners; unset: apps/gateway/partners.demo.json
//                                                with its lmsUrl set to the LMS's public URL (a copy in a
//                                                temporary directory, removed on stop)
//   LOG_FORMAT                                   auto (pretty on a terminal, JSON otherwise) | json | pretty
//   --no-build                                   skip the build (the start test; dist/ is already built)
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireProjectNode } from './check-node.mjs';
import { formatLine } from './log-format.mjs';

requireProjectNode('scripts/start.mjs');

const root = fileURLToPath(new URL('..', import.meta.url));
// This Node first on PATH for what runs below (turbo's tasks call `node` by name), also when the
// script was started without pnpm (`node_modules/.bin/node scripts/start.mjs`).
const env = { ...process.env, PATH: [dirname(process.execPath), process.env.PATH].filter(Boolean).join(delimiter) };
const argv = process.argv.slice(2);
const logFormat = env.LOG_FORMAT ?? 'auto';
if (!['auto', 'json', 'pretty'].includes(logFormat)) fail(`LOG_FORMAT must be auto, json or pretty (not ${JSON.stringify(logFormat)})`);
const pretty = logFormat === 'pretty' || (logFormat === 'auto' && process.stdout.isTTY === true);

if (!env.GATEWAY_SECRET) {
  env.GATEWAY_SECRET = randomBytes(32).toString('base64url');
  note('GATEWAY_SECRET is not set: the LMS and the gateway share a fresh random one for this run.');
}
// A server's port, known before it listens: the banner and the other servers' settings name it,
// and the start waits on it. So no 0 (a free port the start could not know), except for a metrics
// port, where 0 means no listener.
const port = (name, fallback, zero = false) => {
  const value = env[name] || String(fallback);
  if (!/^\d{1,5}$/.test(value) || Number(value) < (zero ? 0 : 1) || Number(value) > 65535)
    fail(
      `${name} must be a port from ${zero ? 0 : 1} to 65535 (the start names it before the server listens), not ${JSON.stringify(value)}`,
    );
  return value;
};
const lmsPort = port('LMS_PORT', 3000);
const gatewayPort = port('GATEWAY_PORT', 3001);
const partnerPort = port('PARTNER_PORT', 3002);
const lmsUrl = (env.LMS_PUBLIC_URL || `http://localhost:${lmsPort}`).replace(/\/$/, '');
const gatewayUrl = (env.GATEWAY_PUBLIC_URL || `http://localhost:${gatewayPort}`).replace(/\/$/, '');
const partnerUrl = `http://127.0.0.1:${partnerPort}`;
// Nothing balances load here: no drain period on stop unless asked.
const drain = env.SHUTDOWN_DRAIN_MS || '0';
// The demo partner runs on PARTNER_PORT: the LMS reads its keys there (seeded so on a fresh
// database, set so on every start), and the gateway sends its members to this LMS's public URL.
const demoPartnerJwksUrl = env.DEMO_PARTNER_JWKS_URL || `${partnerUrl}/.well-known/jwks.json`;
// The demo partner's event endpoint and member check: the LMS registers them on the demo partner
// at start (with this run's signing secret, which the partner verifies with); plain http on the
// loopback is allowed for this demo only.
const demoWebhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
const partnersFile = env.PARTNERS_FILE || demoPartnersFile(lmsUrl);
// No SMTP_URL: the LMS's e-mails go to the demo mail catcher, on the loopback.
const mailCatcher = !env.SMTP_URL;
const catcherSmtpPort = port('MAIL_CATCHER_SMTP_PORT', 1025);
const catcherUrl = `http://127.0.0.1:${port('MAIL_CATCHER_PORT', 1080)}`;

// 1. Build: the two apps and the workspace packages they use; not bench, e2e or the examples.
if (!argv.includes('--no-build')) {
  // The workspace's own turbo, so `node scripts/start.mjs` works outside pnpm too.
  const local = join(root, 'node_modules/.bin', process.platform === 'win32' ? 'turbo.cmd' : 'turbo');
  const turbo = existsSync(local) ? local : 'turbo';
  const build = spawnSync(turbo, ['run', 'build', '--filter=@lms/lms...', '--filter=@lms/gateway...', '--output-logs=errors-only'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env,
  });
  if (build.error) fail(`cannot run turbo: ${build.error.message} (run pnpm install first)`);
  if (build.status !== 0) fail('the build failed (see above)');
}

// 2. The servers, each with its own port and settings.
const servers = [
  // The catcher first: it is listening before the LMS sends anything.
  ...(mailCatcher
    ? [
        {
          name: 'mail',
          cwd: join(root, 'examples/mail-catcher'),
          args: ['src/server.js'],
          env: { HOST: '127.0.0.1', SMTP_PORT: catcherSmtpPort, HTTP_PORT: port('MAIL_CATCHER_PORT', 1080) },
          ready: `${catcherUrl}/api/messages`,
        },
      ]
    : []),
  {
    name: 'lms',
    cwd: join(root, 'apps/lms'),
    // As the LMS's Dockerfile and `start` run it (the young generation: bench/README.md, "How it works").
    args: ['--max-semi-space-size=64', 'dist/server.js'],
    env: {
      PORT: lmsPort,
      PUBLIC_URL: lmsUrl,
      METRICS_PORT: port('LMS_METRICS_PORT', 9464, true),
      SHUTDOWN_DRAIN_MS: drain,
      DEMO_PARTNER_JWKS_URL: demoPartnerJwksUrl,
      DEMO_PARTNER_WEBHOOK_URL: `${partnerUrl}/webhooks`,
      DEMO_PARTNER_WEBHOOK_SECRET: demoWebhookSecret,
      DEMO_PARTNER_MEMBER_CHECK_URL: `${partnerUrl}/members/status`,
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      ...(mailCatcher ? { SMTP_URL: `smtp://127.0.0.1:${catcherSmtpPort}` } : {}),
    },
    ready: `http://127.0.0.1:${lmsPort}/readyz`,
  },
  {
    name: 'gateway',
    cwd: join(root, 'apps/gateway'),
    args: ['dist/server.js'],
    env: {
      PORT: gatewayPort,
      PUBLIC_URL: gatewayUrl,
      METRICS_PORT: port('GATEWAY_METRICS_PORT', 9465, true),
      PARTNERS_FILE: partnersFile,
      SHUTDOWN_DRAIN_MS: drain,
    },
    ready: `http://127.0.0.1:${gatewayPort}/readyz`,
  },
  {
    name: 'partner',
    cwd: join(root, 'examples/partner-backend'),
    args: ['src/server.js'],
    env: {
      PORT: partnerPort,
      HOST: '127.0.0.1',
      GATEWAY_URL: gatewayUrl,
      LMS_URL: lmsUrl,
      WEBHOOK_SECRET: demoWebhookSecret,
      DATA_DIR: env.PARTNER_DATA_DIR || '',
    },
    ready: `${partnerUrl}/.well-known/jwks.json`,
  },
];

// Lines the servers print when run alone; here the one banner below says all of it.
const OWN_BANNERS =
  /^\s*(LMS ready at|API docs |Dashboard |Health |Demo API key |Gateway ready at|demo partner .* on http|JWKS: |try: |mail catcher: |page: )/;

let stopping = false;
for (const server of servers) {
  const childEnv = { ...env, ...server.env };
  if (!childEnv.DATA_DIR) delete childEnv.DATA_DIR;
  const child = spawn(process.execPath, server.args, { cwd: server.cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  server.child = child;
  server.exited = new Promise((done) => child.on('exit', (code, signal) => done(code ?? signal)));
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop();
      for (const line of lines) show(server.name, line, stream === child.stderr);
    });
  }
  server.exited.then((how) => {
    if (stopping) return;
    note(`${server.name} stopped (${how}); stopping the others.`);
    void stopAll(1);
  });
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stopAll(0));
// `kill <pnpm or npx pid>` may end an ancestor without a word to us. Our parent going shows as
// a re-parenting; but `npx pnpm run start` is npx → sh → pnpm → sh → this script, and killing
// npx leaves pnpm and its shell running (orphaned, re-parented to init): our parent stays. So
// every ancestor seen at start is watched (Linux: /proc, by pid and start time, so a reused pid
// does not count); elsewhere only the parent.
const parent = process.ppid;
const ancestors = ancestorsOf(process.pid);
setInterval(() => {
  if (process.ppid !== parent || ancestors.some((a) => !sameProcess(a))) void stopAll(0);
}, 500).unref();

await waitUntilReady();
printBanner();

function show(name, line, isErr) {
  if (line.trim() === '' || OWN_BANNERS.test(line)) return;
  const out = isErr ? process.stderr : process.stdout;
  const text = pretty ? formatLine(name, line) : line;
  if (text !== null) out.write(`${text}\n`);
}

async function waitUntilReady() {
  for (const server of servers) {
    for (;;) {
      if (stopping) return new Promise(() => {});
      try {
        const res = await fetch(server.ready, { signal: AbortSignal.timeout(2_000) });
        if (res.ok) break;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

function printBanner() {
  const demoKey = readDemoKey();
  const lines = [
    '',
    `  ┌ LMS service is running on Node ${process.version}`,
    `  │ LMS            ${lmsUrl}`,
    `  │ API docs       ${lmsUrl}/docs`,
    `  │ Dashboard      ${lmsUrl}/dashboard`,
    `  │ Gateway        ${gatewayUrl}   (docs: ${gatewayUrl}/docs)`,
    `  │ Demo partner   ${partnerUrl}/   (signs in through the gateway: open it and follow the link)`,
    mailCatcher
      ? `  │ Mail catcher   ${catcherUrl}/   (the e-mails the LMS sends, kept here; SMTP on smtp://127.0.0.1:${catcherSmtpPort})`
      : '  │ E-mail         sent through SMTP_URL',
    demoKey
      ? `  │ Demo API key   ${demoKey}   (teacher@demo.lms; try: curl -H 'x-api-key: ${demoKey}' ${lmsUrl}/api/courses)`
      : env.DATABASE_URL
        ? '  │ Demo API key   shown once when the demo data was added (PostgreSQL keeps only its hash): lms-admin api-key create'
        : '  │ Demo API key   none (the database was not seeded with the demo data)',
    `  └ Stop: Ctrl-C (or SIGTERM to this process): all ${servers.length === 4 ? 'four' : 'three'} servers stop.`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * apps/gateway/partners.demo.json with every lmsUrl set to `publicUrl`, in a temporary directory
 * removed when the start exits: the file in the repository stays as it is (docker compose mounts
 * it too), and LMS_PORT or LMS_PUBLIC_URL also move where the gateway sends members.
 */
function demoPartnersFile(publicUrl) {
  const demo = JSON.parse(readFileSync(join(root, 'apps/gateway/partners.demo.json'), 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'lms-start-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'partners.json');
  writeFileSync(file, `${JSON.stringify({ ...demo, partners: demo.partners.map((p) => ({ ...p, lmsUrl: publicUrl })) }, null, 2)}\n`);
  return file;
}

function readDemoKey() {
  if (env.DATABASE_URL) return null;
  const dataDir = env.DATA_DIR || '.data/pglite';
  const file = join(isAbsolute(dataDir) ? dataDir : resolve(root, 'apps/lms', dataDir), 'demo-api-key.txt');
  try {
    return readFileSync(file, 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** SIGTERM to every server's process group; SIGKILL to what is left after 8 s; then exit. */
async function stopAll(code) {
  if (stopping) return;
  stopping = true;
  for (const { child } of servers) signalGroup(child, 'SIGTERM');
  const killer = setTimeout(() => {
    for (const { child } of servers) signalGroup(child, 'SIGKILL');
  }, 8_000);
  await Promise.all(servers.map((s) => s.exited));
  clearTimeout(killer);
  process.exit(code);
}

function signalGroup(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** `pid`'s parent, session and start time (fields 4, 6 and 22 of /proc/<pid>/stat), or null when unknown (gone, or no /proc). */
function procStat(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, the last ')' ends it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), session: Number(fields[3]), started: fields[19] };
  } catch {
    return null;
  }
}

/**
 * The processes above `pid` up to (not including) init and the session's first process (the
 * terminal's shell: when it goes, SIGHUP already stops us), each with its start time.
 */
function ancestorsOf(pid) {
  const found = [];
  const sessionLeader = procStat(pid)?.session;
  for (let p = procStat(pid)?.ppid; p && p > 1 && p !== sessionLeader && found.length < 16; p = procStat(p)?.ppid) {
    const stat = procStat(p);
    if (!stat) break;
    found.push({ pid: p, started: stat.started });
  }
  return found;
}

function sameProcess(ancestor) {
  return procStat(ancestor.pid)?.started === ancestor.started;
}

function note(text) {
  process.stderr.write(`${text}\n`);
}

function fail(text) {
  note(text);
  process.exit(1);
}
