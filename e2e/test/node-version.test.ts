import { spawnSync } from 'node:child_process';
import { accessSync, constants, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { parse, parseAllDocuments } from 'yaml';
import { shellPath } from './helpers/shell-path.js';

// CI runs this file once (not again in the PostgreSQL pass): files and the Node version check; no database.

// One Node.js for the whole project, in one place: the root package.json's devDependencies.node
// (the npm registry's `node` package, which pnpm installs as node_modules/.bin/node and puts first
// on PATH for every script). This test holds everything else that names a Node to it, and shows
// that a script started on an older Node (the machine's own, first on PATH) stops with a message
// instead of running on it. The images are not built here (no Docker): that the tag exists on the
// registry stays unverified.

// npx and pnpm four times on a loaded machine: more than the 180 s a file gets by default.
t.setTimeout(600_000);

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const rootPackage = JSON.parse(read('package.json')) as {
  engines: Record<string, string>;
  devDependencies: Record<string, string>;
};
const NODE = rootPackage.devDependencies.node!;

const parts = (version: string) => version.replace(/^v/, '').split('.').map(Number);
const older = (a: string, b: string) => {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]!;
  return false;
};

t.test('package.json: one exact version, engines from it, and the tests run on it', async (t) => {
  t.match(NODE, /^\d+\.\d+\.\d+$/, `devDependencies.node is an exact version (${NODE})`);
  t.equal(rootPackage.engines.node, `>=${NODE}`, 'engines.node: this version or later');
  t.equal(process.version, `v${NODE}`, 'this test runs on it (pnpm run test → turbo → tap → this file)');
  const workspace = parse(read('pnpm-workspace.yaml')) as {
    allowBuilds: Record<string, boolean>;
    catalog: Record<string, string>;
    overrides?: unknown;
  };
  t.equal(workspace.allowBuilds.node, true, "pnpm-workspace.yaml lets the node package's install script fetch the runtime");
  t.equal(parts(workspace.catalog['@types/node']!)[0], parts(NODE)[0], '@types/node is of the same major version');
  t.equal(workspace.overrides, undefined, 'no overrides: the dependencies take the versions they declare');
  const lock = read('pnpm-lock.yaml');
  t.match(
    lock,
    new RegExp(`\\n {6}node:\\n {8}specifier: ${NODE.replaceAll('.', '\\.')}\\n {8}version: ${NODE.replaceAll('.', '\\.')}\\n`),
    'the lockfile has it',
  );
});

t.test("the Dockerfiles build on it: NODE_VERSION's default, every FROM of the node image", async (t) => {
  for (const file of ['apps/lms/Dockerfile', 'apps/gateway/Dockerfile']) {
    const text = read(file);
    const args = [...text.matchAll(/^ARG NODE_VERSION=(\S*)$/gm)].map((m) => m[1]);
    t.same(args, [NODE], `${file}: ARG NODE_VERSION=${NODE}`);
    const froms = [...text.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]!).filter((image) => !/^(base|prune|build)$/.test(image));
    t.ok(froms.length >= 2, `${file}: a build stage and a runtime stage from the node image`);
    for (const image of froms) {
      // node:<NODE_VERSION>-<variant>, optionally pinned to a digest: the tag always comes from the ARG.
      t.match(image, /^node:\$\{NODE_VERSION\}-bookworm-slim(@sha256:[0-9a-f]{64})?$/, `${file}: FROM ${image}`);
    }
  }
});

t.test('docker-compose.yml builds every image with it', async (t) => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, { build?: { dockerfile: string; args?: Record<string, string> } }>;
  };
  const builds = Object.entries(compose.services).filter(([, s]) => s.build);
  t.same(builds.map(([name]) => name).sort(), ['gateway', 'lms', 'migrate'], 'the services that build an image');
  for (const [name, service] of builds) t.equal(service.build!.args?.NODE_VERSION, NODE, `${name}: build arg NODE_VERSION`);
});

t.test('the Kubernetes pod templates say it', async (t) => {
  const dir = join(ROOT, 'deploy/kubernetes');
  let templates = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      const m = doc.toJS() as {
        kind: string;
        metadata: { name: string };
        spec?: { template?: { metadata: { labels: Record<string, string> } } };
      };
      if (!m?.spec?.template) continue;
      templates++;
      t.equal(
        m.spec.template.metadata.labels['lms-service/node-version'],
        NODE,
        `${file} ${m.kind} ${m.metadata.name}: label lms-service/node-version`,
      );
    }
  }
  t.equal(templates, 3, 'the LMS and gateway Deployments and the migration Job');
});

// The machine's own Node: the first `node` on PATH outside any node_modules/.bin (what a shell
// without pnpm runs; /usr/bin/node, v20, on this project's machines).
function machineNode(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || dir.split(sep).includes('node_modules')) continue;
    try {
      accessSync(join(dir, 'node'), constants.X_OK);
      return join(dir, 'node');
    } catch {
      // not here
    }
  }
  return undefined;
}

t.test("on the machine's older Node, first on PATH, the start script and the CI check stop with a message", async (t) => {
  const node = machineNode();
  if (!node) throw new Error('no node on PATH outside node_modules');
  const version = spawnSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).stdout.trim();
  const path = [dirname(node), shellPath()].join(delimiter);
  const env = { ...process.env, PATH: path, NODE_OPTIONS: '' };
  const refused = (what: string) =>
    new RegExp(
      `${what} is running on Node ${version.replaceAll('.', '\\.')} \\(.*\\), older than the project's Node ${NODE.replaceAll('.', '\\.')}\\n`,
    );
  if (!older(version, NODE)) {
    // A machine whose own Node is this one or newer: nothing to refuse, and the check says so.
    t.comment(`the machine's node (${node}) is ${version}, not older than ${NODE}: it is accepted`);
    const check = spawnSync(node, ['scripts/check-node.mjs'], { cwd: ROOT, env, encoding: 'utf8' });
    t.equal(check.status, 0, check.stderr);
    return;
  }
  t.comment(`the machine's node: ${node} ${version}`);

  // Started by hand with the machine's node: refused before anything is built or started.
  const start = spawnSync('node', [join(ROOT, 'scripts/start.mjs'), '--no-build'], {
    cwd: ROOT,
    env: { ...env, LMS_PORT: '1', GATEWAY_PORT: '1', PARTNER_PORT: '1' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  t.equal(start.status, 1, 'node scripts/start.mjs exits 1');
  t.match(start.stderr, refused('scripts/start.mjs'), "the message names this Node and the project's");
  t.match(start.stderr, 'npx -y pnpm@12 install && npx -y pnpm@12 run <script>', 'and says how to run it');
  t.notMatch(start.stdout + start.stderr, /LMS service is running|GATEWAY_SECRET is not set/, 'nothing else ran');

  const check = spawnSync('node', ['scripts/check-node.mjs'], { cwd: ROOT, env, encoding: 'utf8' });
  t.equal(check.status, 1, 'node scripts/check-node.mjs (what .ci/run runs through pnpm) exits 1');
  t.match(check.stderr, refused('scripts/check-node.mjs'), "the message names this Node and the project's");
  t.equal(check.stdout, '', 'and prints no runtime line');

  // Through pnpm, as .ci/run and the README run them, when the install left no working
  // node_modules/.bin/node (--ignore-scripts: the node package's script did not fetch the
  // runtime): pnpm's PATH then leads to the machine's node, and both stop with the message. A
  // copy of the root's files, so this repository's node_modules stays as it is.
  const copy = mkdtempSync(join(tmpdir(), 'lms-node-version-'));
  t.teardown(() => rmSync(copy, { recursive: true, force: true }));
  for (const file of ['package.json', 'pnpm-workspace.yaml', 'scripts']) cpSync(join(ROOT, file), join(copy, file), { recursive: true });
  const pnpm = (...args: string[]) => spawnSync('npx', ['-y', 'pnpm@12', ...args], { cwd: copy, env, encoding: 'utf8', timeout: 300_000 });
  const install = pnpm('install', '--ignore-scripts', '--prefer-offline');
  t.equal(install.status, 0, `pnpm install --ignore-scripts in a copy: ${install.stderr}`);
  const ciCheck = pnpm('exec', 'node', 'scripts/check-node.mjs');
  t.equal(ciCheck.status, 1, ".ci/run's check (pnpm exec node scripts/check-node.mjs) exits 1");
  t.match(ciCheck.stderr, refused('scripts/check-node.mjs'), 'the same message');
  const readmeStart = pnpm('run', 'start');
  t.not(readmeStart.status, 0, "the README's start (pnpm run start) fails");
  t.match(readmeStart.stderr, refused('scripts/start.mjs'), 'the same message');
  t.notMatch(readmeStart.stdout, /LMS service is running/, 'no banner');
});
