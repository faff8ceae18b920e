import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_VARIABLES as GATEWAY_VARIABLES, DEPLOYMENT_VARIABLES as GATEWAY_REQUIRED } from '@lms/gateway/config';
import { CONFIG_VARIABLES as LMS_VARIABLES, DEPLOYMENT_VARIABLES as LMS_REQUIRED } from '@lms/lms/config';
import t from 'tap';
import { parse } from 'yaml';
import { startGateway, startLms } from './helpers/services.js';

// docker-compose.yml and the two Dockerfiles have never run here (no Docker on these machines):
// this test holds them against the code instead. What stays unverified: the images build, the
// base images and their tags exist, the containers start and talk to each other.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Service {
  build?: { context: string; dockerfile: string };
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  ports?: string[];
  volumes?: string[];
}
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };

/** Which app a service runs, by the Dockerfile it builds. */
const APPS = {
  'apps/lms/Dockerfile': { name: 'lms', variables: LMS_VARIABLES, required: LMS_REQUIRED },
  'apps/gateway/Dockerfile': { name: 'gateway', variables: GATEWAY_VARIABLES, required: GATEWAY_REQUIRED },
} as const;
const appServices = Object.entries(compose.services).filter(([, s]) => s.build);

/** The HTTP paths a healthcheck command fetches (`fetch('http://127.0.0.1:3000/readyz')`). */
const probedUrls = (command: string) =>
  [...command.matchAll(/http:\/\/127\.0\.0\.1:(\d+|'\+[^+]+\+')(\/[\w/-]*)/g)].map((m) => ({ port: m[1]!, path: m[2]! }));

t.test('every service that builds an app names a known Dockerfile, and passes only variables its config knows', async (t) => {
  t.ok(appServices.length >= 3, 'migrate, lms and gateway build an app');
  for (const [name, service] of appServices) {
    t.equal(service.build!.context, '.', `${name}: built from the repository root`);
    const app = APPS[service.build!.dockerfile as keyof typeof APPS];
    t.ok(app, `${name}: builds ${service.build!.dockerfile}, one of the apps`);
    if (!app) continue;
    const unknown = Object.keys(service.environment ?? {}).filter((v) => !app.variables.includes(v));
    t.same(unknown, [], `${name}: every environment variable is one the ${app.name} config reads`);
  }
});

t.test('the long-running services pass every variable a deployment must set; migrate has its database', async (t) => {
  for (const [name, service] of appServices) {
    const app = APPS[service.build!.dockerfile as keyof typeof APPS];
    const passed = Object.keys(service.environment ?? {});
    if (name === 'migrate') {
      t.ok(passed.includes('DATABASE_URL'), 'migrate: DATABASE_URL');
      continue;
    }
    t.same(
      app.required.filter((v) => !passed.includes(v)),
      [],
      `${name}: passes ${app.required.join(', ')}`,
    );
    const port = service.environment!.PORT;
    t.ok(port, `${name}: PORT is set`);
    t.ok(
      service.ports?.some((p) => p.endsWith(`:${port}`)),
      `${name}: the published port maps to PORT ${port}`,
    );
    const probes = probedUrls(service.healthcheck?.test.join(' ') ?? '');
    t.ok(probes.length > 0, `${name}: has an HTTP healthcheck`);
    for (const probe of probes) t.equal(probe.port, port, `${name}: the healthcheck asks the PORT the app listens on`);
  }
});

t.test('every healthcheck path (compose and Dockerfiles) is a route that answers 200 on a running app', async (t) => {
  const lms = await startLms(t);
  const gateway = await startGateway(t, []);
  const apps = { lms: lms.app, gateway };
  const checks: Array<{ where: string; app: 'lms' | 'gateway'; path: string }> = [];
  for (const [name, service] of appServices) {
    const app = APPS[service.build!.dockerfile as keyof typeof APPS].name;
    for (const probe of probedUrls(service.healthcheck?.test.join(' ') ?? ''))
      checks.push({ where: `compose ${name}`, app, path: probe.path });
  }
  for (const [file, { name }] of Object.entries(APPS)) {
    const healthcheck = /^HEALTHCHECK[\s\S]*?CMD (.*)$/m.exec(read(file))?.[1] ?? '';
    const probes = probedUrls(healthcheck);
    t.ok(probes.length > 0, `${file}: has an HTTP HEALTHCHECK`);
    for (const probe of probes) checks.push({ where: file, app: name, path: probe.path });
  }
  t.ok(checks.length >= 4);
  for (const check of checks) {
    const res = await apps[check.app].inject(check.path);
    t.equal(res.statusCode, 200, `${check.where}: GET ${check.path} answers 200 on the ${check.app}`);
  }
});

t.test('the Dockerfiles copy paths that exist, prune and build packages that exist, run files the build makes', async (t) => {
  const packageNames = new Map<string, string>();
  for (const dir of ['apps/lms', 'apps/gateway']) packageNames.set((JSON.parse(read(`${dir}/package.json`)) as { name: string }).name, dir);
  for (const file of Object.keys(APPS)) {
    const text = read(file);
    const dir = file.replace(/\/Dockerfile$/, '');
    // COPY from the build context (not --from another stage): every source must exist.
    for (const m of text.matchAll(/^COPY (?!.*--from)(?:--\S+ )*(.+)$/gm)) {
      const parts = m[1]!.trim().split(/\s+/);
      for (const source of parts.slice(0, -1)) t.ok(existsSync(join(ROOT, source)), `${file}: COPY ${source} exists`);
    }
    for (const m of text.matchAll(/(?:turbo prune|--filter[= ])\s*(@[\w/-]+)/g))
      t.ok(packageNames.has(m[1]!), `${file}: ${m[1]} is a workspace package`);
    t.ok(text.includes(`turbo prune ${[...packageNames].find(([, d]) => d === dir)![0]} `), `${file}: prunes its own package`);
    // Files the image runs out of dist/: the TypeScript source they are built from exists.
    for (const m of text.matchAll(/dist\/([\w/-]+)\.js/g))
      t.ok(existsSync(join(ROOT, dir, 'src', `${m[1]}.ts`)), `${file}: dist/${m[1]}.js is built from src/${m[1]}.ts`);
    for (const m of text.matchAll(/^ENV (.+)$/gm)) {
      const names = [...m[1]!.matchAll(/(\w+)=/g)].map((n) => n[1]!);
      const known = APPS[file as keyof typeof APPS].variables;
      t.same(
        names.filter((n) => !known.includes(n)),
        [],
        `${file}: ENV sets only variables the config reads`,
      );
    }
  }
  for (const [name, service] of appServices) {
    for (const volume of service.volumes ?? []) {
      const host = /^\$\{[A-Z_]+:-([^}]+)\}:/.exec(volume)?.[1] ?? (volume.startsWith('.') ? volume.split(':')[0] : undefined);
      if (host) t.ok(existsSync(join(ROOT, host)), `${name}: the default host path ${host} exists`);
    }
  }
});

// Debian's docker-compose (1.29) validates the file against the compose schema and resolves every
// ${VAR:-default} without a Docker daemon (the e2e test script installs it when missing). It
// predates the compose spec's top-level `name:` (the project name only): that one line is left out.
t.test('docker-compose config accepts the file, and refuses it without GATEWAY_SECRET', async (t) => {
  const input = read('docker-compose.yml').replace(/^name: .*$/m, '');
  const config = (env: Record<string, string>) =>
    spawnSync('docker-compose', ['-f', '-', 'config'], { cwd: ROOT, input, encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });
  const ok = config({ GATEWAY_SECRET: 'compose-config-check-secret' });
  t.equal(ok.status, 0, ok.stderr);
  const resolved = parse(ok.stdout) as { services: Record<string, Service> };
  t.equal(resolved.services.lms?.environment?.PUBLIC_URL, 'http://localhost:3000', 'defaults resolved');
  t.equal(resolved.services.gateway?.environment?.GATEWAY_SECRET, 'compose-config-check-secret');
  const missing = config({});
  t.not(missing.status, 0, 'without GATEWAY_SECRET compose refuses');
  t.match(missing.stderr, 'GATEWAY_SECRET must be set');
});
