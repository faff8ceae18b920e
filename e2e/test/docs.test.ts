import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGateway } from '@lms/gateway/app';
import { testConfig as gatewayTestConfig } from '@lms/gateway/testing';
import { buildApp } from '@lms/lms/app';
import { testConfig as lmsTestConfig } from '@lms/lms/testing';
import { createTestDb } from '@lms/db/testing';
import { METRICS_PATH } from '@lms/server-kit';
import t, { type Test } from 'tap';
import { testDatabaseUrl } from './helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): the docs against the routes and the manifests; the database the LMS is built on is incidental.

// The docs say what the code does only while someone checks them. This file holds the READMEs
// (the root's, the apps', the packages') and docs/*.md to the code: every HTTP route they name is
// one of the apps' routes (collected from the built apps, not from a list), every package export
// they name is in that package's `exports` and every export is named in its package's README,
// every route of the gateway is named in the gateway's README, and every repository path they
// name in backticks, or link to, exists.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const list = (dir: string) => readdirSync(join(ROOT, dir)).sort();

/** The documents checked: the root README and CONTRIBUTING, each app's and package's README, docs/. */
const DOCUMENTS = [
  'README.md',
  'CONTRIBUTING.md',
  ...['apps', 'packages'].flatMap((dir) => list(dir).map((name) => `${dir}/${name}/README.md`)),
  ...list('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
].filter((path) => existsSync(join(ROOT, path)));

/** The two apps, and the metrics listener each runs on a port of its own (server-kit). */
type AppName = 'lms' | 'gateway' | 'metrics';
interface Route {
  app: AppName;
  method: string;
  url: string;
}

/**
 * Every route of a built app, from Fastify's own listing (`printRoutes` with full segments): a
 * tree whose lines are `├── <segment> (<METHODS>)`, each nested 4 characters under its parent.
 */
function routesOf(app: { printRoutes: (options: { commonPrefix: boolean }) => string }, name: AppName): Route[] {
  const routes: Route[] = [];
  const parents: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = line.match(/^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([^)]*)\))?$/);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const url = (depth > 0 ? parents[depth - 1]! : '') + match[2]!;
    parents[depth] = url;
    parents.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? []) routes.push({ app: name, method, url });
  }
  return routes;
}

/** A placeholder segment of a documented path (`{id}`, `<code>`, `:id`, `1`): it stands for a route parameter only. */
const PARAM = '\u0000';

/** A documented path reduced to what a route must match: no host, query or fragment; its placeholders marked. */
function normalise(path: string): string {
  const bare = path.replace(/[?#].*$/, '').replace(/[.,:;]+$/, '');
  return bare
    .split('/')
    .map((segment) => (/[{<]|^:|^\d+$/.test(segment) ? PARAM : segment))
    .join('/');
}

/** Whether a route's pattern (`/api/courses/:id`, `/docs/*`) serves a normalised documented path. */
function serves(route: Route, path: string): boolean {
  const pattern = route.url
    .split('/')
    .map((segment) => (segment === '*' ? '.*' : segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${pattern}$`).test(path);
}

interface Mention {
  document: string;
  /** The methods written before the path; none for a bare path. */
  methods: string[];
  path: string;
  /** The app the text addresses by its host (`{gateway}`, `localhost:3001`); otherwise either. */
  app?: AppName;
  text: string;
}

const METHOD = '(?:GET|POST|PUT|PATCH|DELETE)';
/** What separates methods named together: `GET, PUT`, `PATCH`/`DELETE`, `GET or POST`. */
const METHODS_BETWEEN = '`?(?:, ?| ?/ ?| or )`?';
/** `GET /api/courses`, `POST, DELETE /api/x`, `PATCH`/`DELETE /api/x`, `POST {gateway}/api/courses`, `GET http://localhost:3001/x`. */
const METHOD_AND_PATH = new RegExp(
  `\\b(${METHOD}(?:${METHODS_BETWEEN}${METHOD})*)\\s+(\\{gateway\\}|\\{lmsUrl\\}|https?://(?:localhost|127\\.0\\.0\\.1):\\d+)?(/[^\\s\`'"),;|\\]]*)`,
  'g',
);
/** A path alone in backticks: `/learn/credits`. */
const BARE_PATH = /`(\/[^`\s]*)`/g;
/** An address of a local app: http://localhost:3000/api/courses (the start command's ports). */
const LOCAL_URL = /https?:\/\/(?:localhost|127\.0\.0\.1):(3000|3001)(\/[^\s`'")]*)/g;

const HOSTS: Record<string, AppName> = { '{gateway}': 'gateway', '{lmsUrl}': 'lms', '3000': 'lms', '3001': 'gateway' };
const hostApp = (host: string | undefined): AppName | undefined | null => {
  if (!host) return undefined;
  const port = host.match(/:(\d+)$/)?.[1];
  // Another host (the partner's backend on :3002, example.org): not ours to check.
  return HOSTS[port ?? host] ?? null;
};

function mentionsIn(document: string): Mention[] {
  const text = read(document);
  const mentions: Mention[] = [];
  const seen = new Set<number>();
  for (const m of text.matchAll(METHOD_AND_PATH)) {
    const app = hostApp(m[2]);
    seen.add(m.index + m[0].length - m[3]!.length);
    if (app === null) continue;
    mentions.push({ document, methods: m[1]!.split(new RegExp(METHODS_BETWEEN)), path: m[3]!, app, text: m[0].replace(/\s+/g, ' ') });
  }
  for (const m of text.matchAll(LOCAL_URL)) {
    seen.add(m.index + m[0].length - m[2]!.length);
    mentions.push({ document, methods: [], path: m[2]!, app: hostApp(`:${m[1]}`) ?? undefined, text: m[0] });
  }
  for (const m of text.matchAll(BARE_PATH)) {
    if (seen.has(m.index + 1)) continue;
    mentions.push({ document, methods: [], path: m[1]!, text: m[0] });
  }
  // A path with a wildcard or an elision (`/api/*`, `…/pdf`) names a family, not a route.
  return mentions.filter((mention) => !/[*…]/.test(mention.path));
}

async function builtRoutes(t: Test): Promise<Route[]> {
  const db = await createTestDb(testDatabaseUrl);
  const lms = await buildApp({ config: lmsTestConfig(), db, logger: false });
  const dir = await mkdtemp(join(tmpdir(), 'docs-partners-'));
  await writeFile(join(dir, 'partners.json'), JSON.stringify({ partners: [] }));
  const gateway = await buildGateway({
    config: gatewayTestConfig({ PARTNERS_FILE: join(dir, 'partners.json') }),
    logger: false,
    partnersWatch: { watch: false, pollIntervalMs: 60_000 },
  });
  t.teardown(async () => {
    await gateway.close();
    await lms.close();
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  });
  await Promise.all([lms.ready(), gateway.ready()]);
  return [...routesOf(lms, 'lms'), ...routesOf(gateway, 'gateway'), { app: 'metrics', method: 'GET', url: METRICS_PATH }];
}

const routes = await builtRoutes(t);
/** The first segments the apps serve (`api`, `sso`, `learn`…): a bare path in backticks under one of them names a route. */
const SERVED = new Set(routes.map((route) => route.url.split('/')[1]));

t.test('the documents checked: the READMEs of the root, the apps and the packages, and docs/', async (t) => {
  for (const document of ['README.md', 'apps/lms/README.md', 'apps/gateway/README.md', 'packages/db/README.md', 'docs/api.md']) {
    t.ok(DOCUMENTS.includes(document), document);
  }
  t.ok(DOCUMENTS.length >= 12, `${DOCUMENTS.length} documents`);
});

t.test('the listing sees every route of both apps', async (t) => {
  const has = (app: AppName, method: string, url: string) => routes.some((r) => r.app === app && r.method === method && r.url === url);
  t.ok(has('gateway', 'GET', '/sso/verify'), 'the gateway: GET /sso/verify');
  t.ok(has('gateway', 'PATCH', '/api/courses/:id'), 'the gateway: an authoring route (PATCH /api/courses/:id)');
  t.ok(has('lms', 'GET', '/api/courses/:id'), 'the LMS: GET /api/courses/:id');
  t.ok(has('lms', 'GET', '/learn/credits.csv'), 'the LMS: a page (GET /learn/credits.csv)');
  t.ok(routes.filter((r) => r.app === 'lms').length > 100, `the LMS: ${routes.filter((r) => r.app === 'lms').length} routes`);
});

/** A route cut to its first `segments` segments: `/api/learning/chapters/:id` to 3 is `/api/learning`. */
const cut = (route: Route, segments: number): Route => ({ ...route, url: route.url.split('/').slice(0, segments).join('/') });

/** What is wrong with a mention: nothing, or the reason. */
function problemOf(mention: Mention): string | undefined {
  const path = normalise(mention.path).replace(/(.)\/$/, '$1');
  const segments = path.split('/').length;
  const ofApp = routes.filter((r) => mention.app === undefined || r.app === mention.app);
  const candidates = ofApp.filter((r) => serves(r, path));
  const where = mention.app ? `the ${mention.app === 'lms' ? 'LMS' : mention.app}` : 'any app';
  // A path alone may name a family of routes (`/api/learning`, `/dashboard/assets/`): some route lies under it.
  if (mention.methods.length === 0 && (candidates.length > 0 || ofApp.some((r) => serves(cut(r, segments), path)))) return undefined;
  if (candidates.length === 0) return `${mention.document}: ${mention.text}: no route of ${where} serves ${mention.path}`;
  const missing = mention.methods.filter((method) => !candidates.some((r) => r.method === method));
  if (missing.length > 0) return `${mention.document}: ${mention.text}: ${where} serves ${mention.path} but not with ${missing.join(', ')}`;
  return undefined;
}

t.test('every HTTP route the docs name is one the apps register', async (t) => {
  const mentions = DOCUMENTS.flatMap(mentionsIn).filter(
    (mention) => mention.methods.length > 0 || mention.app !== undefined || SERVED.has(mention.path.split('/')[1]),
  );
  t.ok(mentions.length > 200, `${mentions.length} routes named in ${DOCUMENTS.length} documents`);
  t.same(mentions.map(problemOf).filter(Boolean), [], 'each names a route that exists, with its method');
});

t.test("every route of the gateway is named, with its method, in the gateway's README", async (t) => {
  const named = mentionsIn('apps/gateway/README.md').filter((mention) => mention.methods.length > 0);
  // The docs UI's own files (its page, scripts and styles) are the UI at /docs, named as such.
  const gatewayRoutes = routes.filter((r) => r.app === 'gateway' && r.method !== 'HEAD' && !/^\/docs\/(static\/|\*|$)/.test(r.url));
  t.ok(gatewayRoutes.length >= 25, `${gatewayRoutes.length} routes`);
  const unnamed = gatewayRoutes
    .filter((route) => !named.some((mention) => mention.methods.includes(route.method) && serves(route, normalise(mention.path))))
    .map((route) => `${route.method} ${route.url}`);
  t.same(unnamed, [], 'apps/gateway/README.md names each');
});

interface Manifest {
  name: string;
  dir: string;
  exports: string[];
}
/** Every workspace package with its exports (`.`, `./testing`…). */
const MANIFESTS: Manifest[] = ['apps', 'packages', 'examples']
  .flatMap((dir) => list(dir).map((name) => `${dir}/${name}`))
  .concat(['e2e', 'bench'])
  .filter((dir) => existsSync(join(ROOT, dir, 'package.json')))
  .map((dir) => {
    const manifest = JSON.parse(read(`${dir}/package.json`)) as { name: string; exports?: Record<string, unknown> };
    return { name: manifest.name, dir, exports: Object.keys(manifest.exports ?? {}) };
  });

t.test('every package export the docs name exists, and every export is named in its README', async (t) => {
  t.ok(MANIFESTS.length >= 8, `${MANIFESTS.length} workspace packages`);
  const wrong: string[] = [];
  for (const document of DOCUMENTS) {
    for (const m of read(document).matchAll(/@lms\/([a-z][a-z-]*)((?:\/[a-z][\w-]*)*)/g)) {
      const manifest = MANIFESTS.find((candidate) => candidate.name === `@lms/${m[1]}`);
      if (!manifest) wrong.push(`${document}: ${m[0]}: no workspace package is named @lms/${m[1]}`);
      else if (m[2] && !manifest.exports.includes(`.${m[2]}`))
        wrong.push(`${document}: ${m[0]}: not in ${manifest.dir}/package.json's exports`);
    }
  }
  t.same(wrong, [], 'each named export exists');

  const unnamed: string[] = [];
  for (const manifest of MANIFESTS.filter((candidate) => candidate.exports.length > 0)) {
    const readme = existsSync(join(ROOT, manifest.dir, 'README.md')) ? read(`${manifest.dir}/README.md`) : '';
    for (const entry of manifest.exports) {
      const full = entry === '.' ? manifest.name : `${manifest.name}${entry.slice(1)}`;
      if (!readme.includes(full) && !(entry !== '.' && readme.includes(`\`${entry}\``))) unnamed.push(`${manifest.dir}: ${full}`);
    }
  }
  t.same(unnamed, [], "each package's README names every export (`@lms/x/y` or `./y`)");
});

/** The repository's top-level folders and files: a backticked path starting with one is a path of the repository. */
const TOP_LEVEL = new Set(readdirSync(ROOT).filter((name) => name !== 'node_modules'));
/** What a build or a run makes, absent from a clone. */
const GENERATED = /(^|\/)(\.data|dist|node_modules|\.turbo)(\/|$)/;

/** The anchors of a Markdown file's headings, as GitHub makes them: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const text = read(file).replace(/^```[\s\S]*?^```/gm, '');
  for (const m of text.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    let anchor = slug;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${slug}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

t.test('every repository path the docs name in backticks, or link to, exists', async (t) => {
  const missing: string[] = [];
  let checked = 0;
  for (const document of DOCUMENTS) {
    const dir = dirname(document);
    // In a package's README, a path may start at the package (`src/app.ts`, `test/helpers/`).
    const local = dir === '.' || dir === 'docs' ? new Set<string>() : new Set(readdirSync(join(ROOT, dir)));
    const text = read(document);
    for (const m of text.matchAll(/`([\w.@-]+(?:\/[\w.@-]*)+)`/g)) {
      const path = m[1]!;
      const first = path.split('/')[0]!;
      if (GENERATED.test(path) || path.startsWith('@')) continue;
      const base = local.has(first) ? dir : TOP_LEVEL.has(first) ? '.' : undefined;
      if (base === undefined) continue;
      checked++;
      if (!existsSync(join(ROOT, base, path))) missing.push(`${document}: \`${path}\``);
    }
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const [target, anchor] = m[1]!.split('#') as [string, string | undefined];
      if (/^[a-z]+:/.test(target)) continue;
      const file = target ? join(dir, target) : document;
      checked++;
      if (!existsSync(join(ROOT, file))) missing.push(`${document}: link ${m[1]}`);
      else if (anchor && file.endsWith('.md') && !anchorsOf(file).has(anchor)) missing.push(`${document}: link ${m[1]}: no such heading`);
    }
  }
  t.ok(checked > 200, `${checked} paths and links`);
  t.same(missing, [], 'each exists, and so does the heading a link names');
});
