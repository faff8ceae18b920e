import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { cookieBrowser, signInThroughPartner } from './helpers/cookie-browser.js';
import { freePort } from './helpers/services.js';
import { shellPath } from './helpers/shell-path.js';

// CI runs this file once (not again in the PostgreSQL pass): the README's start command, on its embedded database whatever TEST_DATABASE_URL says.

// The one-command start (scripts/start.mjs, what `pnpm run start` runs) on a temporary data
// directory and free ports: one banner once the LMS, the gateway, the demo partner and the demo
// mail catcher (no SMTP_URL) answer; a signal to the start process alone stops all four, and their
// ports are free again. Linux: the
// servers are found through /proc. The apps are built before the e2e tests, hence --no-build.

t.setTimeout(600_000);

const START = fileURLToPath(new URL('../../scripts/start.mjs', import.meta.url));

interface Started {
  child: ChildProcess;
  ports: number[];
  output(): string;
  exited: Promise<number | string>;
}

// The project's Node (package.json devDependencies.node), which the banner names.
const PROJECT_NODE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).devDependencies.node as string;

async function start(
  t: Test,
  options: {
    wrap?: (args: string[]) => string[];
    dir?: string;
    env?: (ports: number[]) => Record<string, string>;
    cwd?: string;
    path?: string;
  } = {},
): Promise<Started> {
  const { wrap = (args) => args, env = () => ({}) } = options;
  let dir = options.dir;
  if (!dir) {
    const made = await mkdtemp(join(tmpdir(), 'lms-start-script-'));
    t.teardown(() => rm(made, { recursive: true, force: true }));
    dir = made;
  }
  // The LMS, the gateway, the demo partner, the mail catcher's page and its SMTP port.
  const ports = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  const [cmd, ...args] = wrap([process.execPath, START, '--no-build']);
  const child = spawn(cmd!, args, {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: {
      PATH: options.path ?? process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: join(dir, 'lms'),
      PARTNER_DATA_DIR: join(dir, 'partner'),
      LMS_PORT: String(ports[0]),
      GATEWAY_PORT: String(ports[1]),
      PARTNER_PORT: String(ports[2]),
      MAIL_CATCHER_PORT: String(ports[3]),
      MAIL_CATCHER_SMTP_PORT: String(ports[4]),
      LMS_METRICS_PORT: '0',
      GATEWAY_METRICS_PORT: '0',
      LOG_FORMAT: 'json',
      ...env(ports),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal ?? -1)));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => {
      const check = () => (/Stop: Ctrl-C.*\n/.test(out) ? resolve(true) : setTimeout(check, 100));
      check();
    }),
    exited.then(() => false),
  ]);
  if (!ready) throw new Error(`the start ended before its banner:\n${out}`);
  return { child, ports, output: () => out, exited };
}

/** A process's arguments and executable (Linux /proc), or empty when it ended. */
function commandOf(pid: number): { argv: string[]; exe: string } {
  try {
    return { argv: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean), exe: readlinkSync(`/proc/${pid}/exe`) };
  } catch {
    return { argv: [], exe: '' };
  }
}

/** Every process whose parent chain leads to `pid` (Linux /proc). */
function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, the last ')' ends it.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // ended meanwhile
    }
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parentOf) {
      if (parent === p) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const portAnswers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

async function checkAllGone(t: Test, pids: number[], ports: number[]) {
  // The start exits only after its servers did; allow a moment for the kernel to reap them.
  for (let i = 0; i < 50 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
  t.same(pids.filter(alive), [], 'no server process is left');
  for (const port of ports) t.equal(await portAnswers(port), false, `port ${port} is free`);
}

t.test('one banner after all four answer; SIGTERM to the start process alone stops every server', async (t) => {
  const started = await start(t);
  const out = started.output();
  const [lms, gateway, partner, catcher, catcherSmtp] = started.ports;
  t.equal(out.match(/LMS service is running/g)?.length, 1, 'one banner');
  t.match(out, `LMS service is running on Node v${PROJECT_NODE}\n`, "it names the project's Node");
  t.match(out, `LMS            http://localhost:${lms}\n`);
  t.match(out, `http://localhost:${lms}/docs`);
  t.match(out, `http://localhost:${lms}/dashboard`);
  t.match(out, `Gateway        http://localhost:${gateway}`);
  t.match(out, `Demo partner   http://127.0.0.1:${partner}/`);
  t.match(out, `Mail catcher   http://127.0.0.1:${catcher}/`, "the mail catcher's page, with the other addresses");
  t.match(out, `smtp://127.0.0.1:${catcherSmtp}`);
  t.notMatch(out, /mail catcher: SMTP on/, "the catcher's own banner is not repeated");
  const page = await fetch(`http://127.0.0.1:${catcher}/`);
  t.equal(page.status, 200, "the catcher's page answers");
  t.match(await page.text(), 'Mail catcher');
  t.same(await (await fetch(`http://127.0.0.1:${catcher}/api/messages`)).json(), [], 'and its JSON list');
  const key = /Demo API key {3}(lms_key_[A-Za-z0-9_-]{43})/.exec(out)?.[1];
  t.ok(key, 'the demo API key is in the banner');
  t.notMatch(out, /LMS ready at|Gateway ready at/, "the servers' own banners are not repeated");
  t.notMatch(out, /"url":"\/readyz"[^\n]*"level":30|"level":30[^\n]*"url":"\/readyz"/, 'the readiness polls are not logged at info');
  const courses = await fetch(`http://127.0.0.1:${lms}/api/courses`, { headers: { 'x-api-key': key! } });
  t.equal(courses.status, 200, 'the printed key works');
  for (const port of started.ports) t.equal(await portAnswers(port), true, `port ${port} answers`);

  const pids = descendants(started.child.pid!);
  t.ok(pids.length >= 4, 'the four servers run as children of the start process');
  started.child.kill('SIGTERM');
  t.equal(await started.exited, 0, 'the start exits 0');
  await checkAllGone(t, pids, started.ports);
});

t.test('when the process above the start goes (kill <pnpm pid>), the start stops the servers', async (t) => {
  // A shell stands for pnpm: it runs the start as its child and is killed without a word to it.
  const started = await start(t, { wrap: (args) => ['sh', '-c', `${args.map((a) => `'${a}'`).join(' ')} & wait`] });
  const pids = descendants(started.child.pid!);
  t.ok(pids.length >= 5, 'the start and its four servers');
  started.child.kill('SIGKILL');
  await started.exited;
  await checkAllGone(t, pids, started.ports);
});

t.test("kill <npx pid> of the README's command (npx -y pnpm@12 run start) stops the four servers", async (t) => {
  // npx → sh → pnpm → sh → the start: npx forwards SIGTERM to its shell only, so pnpm and the
  // start's own shell live on, orphaned; the start notices that an ancestor went and stops all.
  // PATH as a shell's, without node_modules/.bin: npx and pnpm run on the machine's Node, and
  // pnpm puts the project's first on PATH for the script and its servers.
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const started = await start(t, {
    cwd: root,
    path: shellPath(),
    wrap: (args) => ['npx', '-y', 'pnpm@12', 'run', 'start', ...args.slice(2)],
  });
  t.match(started.output(), `LMS service is running on Node v${PROJECT_NODE}\n`, "the start and its servers run on the project's Node");
  const pids = descendants(started.child.pid!);
  t.ok(pids.length >= 5, `the start and its four servers under npx (${pids.length} processes)`);
  // The start and the four servers, by their command lines: each one's executable is this Node
  // (tap runs this file on the project's), never the machine's that runs npx and pnpm.
  const ours = pids
    .map(commandOf)
    .filter(
      ({ argv }) =>
        /(^|\/)node$/.test(argv[0] ?? '') && argv.some((a) => /^(scripts\/start\.mjs|dist\/server\.js|src\/server\.js)$/.test(a)),
    );
  t.equal(ours.length, 5, `the start and its four servers: ${ours.map((p) => p.argv.join(' ')).join('; ')}`);
  for (const { argv, exe } of ours) t.equal(exe, realpathSync(process.execPath), `${argv.slice(1).join(' ')}: on the project's Node`);
  for (const port of started.ports) t.equal(await portAnswers(port), true, `port ${port} answers`);
  started.child.kill('SIGTERM');
  await started.exited;
  await checkAllGone(t, pids, started.ports);
});

t.test(
  'on other ports than the defaults, a member signs in through the demo partner; again after a restart on yet other ports',
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'lms-start-script-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const member = { email: 'rina.port@example.org', name: 'Rina Port', membershipId: 'PORT-0001' };
    const metrics = async () => ({ LMS_METRICS_PORT: String(await freePort()), GATEWAY_METRICS_PORT: String(await freePort()) });
    const rounds: Array<[string, (ports: number[]) => Record<string, string>]> = [
      // The public URLs follow LMS_PORT and GATEWAY_PORT by default.
      ['a fresh database', () => ({})],
      // The public-URL variables set, on another host name than the default's.
      [
        'a restart on other ports',
        ([lms, gateway]) => ({ LMS_PUBLIC_URL: `http://127.0.0.1:${lms}`, GATEWAY_PUBLIC_URL: `http://127.0.0.1:${gateway}` }),
      ],
    ];
    for (const [round, urls] of rounds) {
      const metricsPorts = await metrics();
      // The restart has an SMTP server of its own (a closed port will do: nothing is sent here): no catcher then.
      const smtp: Record<string, string> = round === 'a fresh database' ? {} : { SMTP_URL: 'smtp://127.0.0.1:9' };
      const started = await start(t, { dir, env: (ports) => ({ ...metricsPorts, ...urls(ports), ...smtp }) });
      if (smtp.SMTP_URL) {
        t.match(started.output(), 'E-mail         sent through SMTP_URL', `${round}: SMTP_URL set: the LMS sends through it`);
        t.notMatch(started.output(), 'Mail catcher', `${round}: and no catcher runs`);
        t.match(started.output(), 'all three servers stop');
      } else t.match(started.output(), 'Mail catcher', `${round}: no SMTP_URL: the catcher runs`);
      const [lmsPort, , partnerPort] = started.ports;
      const lmsUrl = urls(started.ports).LMS_PUBLIC_URL ?? `http://localhost:${lmsPort}`;
      const b = cookieBrowser();
      const chain = await signInThroughPartner(b, `http://127.0.0.1:${partnerPort}`, member);
      t.match(chain.atLms, `${lmsUrl}/sso/verify?token=`, `${round}: the gateway sends the member to the LMS's public URL`);
      t.equal(chain.callback.status, 302, `${round}: the callback signs the member in`);
      t.equal(chain.callback.headers.get('location'), '/dashboard', `${round}: ${chain.callback.headers.get('location')}`);
      const dashboard = await b.get(`${lmsUrl}/dashboard`);
      t.equal(dashboard.status, 200, `${round}: /dashboard with the session`);
      t.match(await dashboard.text(), 'Rina Port');
      started.child.kill('SIGTERM');
      t.equal(await started.exited, 0, `${round}: stopped`);
    }
  },
);

t.test('a port the start cannot name (0, not a number) stops it at once, saying which', async (t) => {
  // The start prints every URL and waits on each server's: MAIL_CATCHER_PORT=0 once hung waiting
  // on port 0. A metrics port may be 0 (no listener), but not beyond 65535.
  for (const [name, value] of [
    ['MAIL_CATCHER_PORT', '0'],
    ['LMS_PORT', 'abc'],
    ['GATEWAY_METRICS_PORT', '70000'],
  ] as const) {
    const child = spawn(process.execPath, [START, '--no-build'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, [name]: value },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.teardown(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const code = await new Promise((resolve) => child.on('close', (c, signal) => resolve(c ?? signal)));
    t.equal(code, 1, `${name}=${value}: exit 1`);
    t.match(out, `${name} must be a port from`, `${name}=${value}: the message names the variable`);
    t.notMatch(out, 'Server listening', `${name}=${value}: no server started`);
  }
});
