import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_VARIABLES as GATEWAY_VARIABLES, DEPLOYMENT_VARIABLES as GATEWAY_REQUIRED } from '@lms/gateway/config';
import {
  CONFIG_VARIABLES as LMS_VARIABLES,
  DEPLOYMENT_VARIABLES as LMS_REQUIRED,
  SECRET_VARIABLES as LMS_SECRETS,
  NOTIFICATION_SECRET_VARIABLES,
} from '@lms/lms/config';
import t from 'tap';
import { parse } from 'yaml';
import { CLOSE_TIMEOUT_MS } from '@lms/server-kit';
import { HAPROXY_DIR, haproxyBinary, haproxyMs, option, readHaproxyConfig, setting } from './helpers/haproxy.js';
import { type PartnerEntry, startGateway, startLms } from './helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): compose against the apps' settings; the backend the LMS runs on here is incidental.

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

// Debian's docker-compose (1.29) validates the file against the compose schema and resolves every
// ${VAR:-default} without a Docker daemon (the e2e test script installs it when missing). It
// predates the compose spec's top-level `name:` (the project name only): that one line is left out.
function composeConfig(env: Record<string, string>) {
  const input = read('docker-compose.yml').replace(/^name: .*$/m, '');
  return spawnSync('docker-compose', ['-f', '-', 'config'], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...env },
  });
}
interface ResolvedService extends Omit<Service, 'ports'> {
  image?: string;
  command?: string[];
  ports?: Array<{ published: number; target: number }>;
  stop_grace_period?: string;
}
/** The file as compose reads it, with every default filled in. */
const REQUIRED_ENV = { GATEWAY_SECRET: 'compose-config-check-secret', CREDENTIAL_ISSUER_KEY_ON_HOST: '/etc/lms/issuer.pem' };
const resolved = parse(composeConfig(REQUIRED_ENV).stdout) as {
  services: Record<string, ResolvedService>;
  networks: { default: { ipam: { config: Array<{ subnet: string }> } } };
};
const defaults = (service: string) => resolved.services[service]!.environment!;

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
    t.same(service.ports ?? [], [], `${name}: publishes no port (the balancer reaches every replica of --scale ${name}=N)`);
    const probes = probedUrls(service.healthcheck?.test.join(' ') ?? '');
    t.ok(probes.length > 0, `${name}: has an HTTP healthcheck`);
    for (const probe of probes) t.equal(probe.port, port, `${name}: the healthcheck asks the PORT the app listens on`);
  }
});

t.test('secrets come from the environment (.env), never a value written in the file; the notifications pass theirs', async (t) => {
  // ${NAME:-} (empty: unset, the config's default) or ${NAME:?message} (required): no default a secret could hide in.
  const fromEnvironment = /^\$\{\w+(?::-|:\?[^}]*)?\}$/;
  for (const [name, service] of appServices) {
    for (const [variable, value] of Object.entries(service.environment ?? {}).filter(([v]) => LMS_SECRETS.includes(v))) {
      if (variable === 'DATABASE_URL') {
        // The bundled PostgreSQL's: its password is POSTGRES_PASSWORD, which the postgres service
        // is started with (the default of both suits a machine of one's own only).
        const password = /^postgres:\/\/\$\{[^}]+\}:(\$\{POSTGRES_PASSWORD\b[^}]*\})@postgres:/.exec(value)?.[1];
        t.ok(password, `${name} DATABASE_URL: its password is \${POSTGRES_PASSWORD}`);
        t.equal(password, compose.services.postgres!.environment!.POSTGRES_PASSWORD, `${name} DATABASE_URL: the postgres service's`);
        continue;
      }
      t.match(value, fromEnvironment, `${name} ${variable}: from the environment (${value})`);
    }
  }
  const lms = compose.services.lms!.environment!;
  t.same(
    NOTIFICATION_SECRET_VARIABLES.filter((v) => !(v in lms)),
    [],
    'the LMS is passed every notification secret',
  );
  t.same(
    NOTIFICATION_SECRET_VARIABLES.filter((v) => defaults('lms')[v] !== ''),
    [],
    'each empty unless .env sets it (optional: that channel stays off)',
  );
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

t.test('docker-compose config accepts the file, and refuses it without GATEWAY_SECRET or the issuer key', async (t) => {
  const ok = composeConfig(REQUIRED_ENV);
  t.equal(ok.status, 0, ok.stderr);
  t.equal(defaults('lms').PUBLIC_URL, 'http://localhost:3000', 'defaults resolved');
  t.equal(defaults('gateway').GATEWAY_SECRET, 'compose-config-check-secret');
  const missing = composeConfig({ CREDENTIAL_ISSUER_KEY_ON_HOST: REQUIRED_ENV.CREDENTIAL_ISSUER_KEY_ON_HOST });
  t.not(missing.status, 0, 'without GATEWAY_SECRET compose refuses');
  t.match(missing.stderr, 'GATEWAY_SECRET must be set');
  const noKey = composeConfig({ GATEWAY_SECRET: REQUIRED_ENV.GATEWAY_SECRET });
  t.not(noKey.status, 0, 'without the issuer key compose refuses');
  t.match(noKey.stderr, 'CREDENTIAL_ISSUER_KEY_ON_HOST must be set');
});

t.test('the LMS runs as a deployment: the issuer key file it names is the one mounted, and its config needs it', async (t) => {
  const lms = defaults('lms');
  t.equal(lms.NODE_ENV, 'production');
  const mounted = (resolved.services.lms!.volumes ?? []) as unknown[];
  const target = mounted
    .map((v) => (typeof v === 'string' ? v.split(':')[1] : (v as { target: string }).target))
    .find((v) => v === lms.CREDENTIAL_ISSUER_KEY_FILE);
  t.ok(target, `${lms.CREDENTIAL_ISSUER_KEY_FILE} is mounted read-only from CREDENTIAL_ISSUER_KEY_ON_HOST`);
  const { loadConfig } = await import('@lms/lms/config');
  const { GATEWAY_SECRET, DATABASE_URL, PUBLIC_URL } = lms;
  t.throws(
    () => loadConfig({ GATEWAY_SECRET, DATABASE_URL, PUBLIC_URL, NODE_ENV: 'production' }),
    /CREDENTIAL_ISSUER_KEY/,
    'the same environment without the key file stops the start, naming the setting',
  );
});

// The balancer (HAProxy, deploy/haproxy) is the one address of each app; what it promises is run
// for real by many-instances.test.ts, and held here against the compose file and the apps.
const balancer = resolved.services.balancer!;
const haproxy = [...readHaproxyConfig('global.cfg'), ...readHaproxyConfig('defaults.cfg'), ...readHaproxyConfig('compose.cfg')];
const section = (kind: string, name = '') => {
  const found = haproxy.find((s) => s.kind === kind && s.name === name);
  if (!found) throw new Error(`deploy/haproxy has no ${kind} ${name}`);
  return found;
};
const bindPort = (frontend: string) => Number(/:(\d+)$/.exec(setting(section('frontend', frontend), 'bind')![0]!)![1]);
const drainMs = (service: string) => Number(defaults(service).SHUTDOWN_DRAIN_MS);

t.test('the balancer: HAProxy from its official image with the repository configuration, valid', async (t) => {
  t.match(balancer.image, /^haproxy:[\d.]+-alpine$/, 'the official image');
  const files = balancer.command!.filter((_, i, all) => all[i - 1] === '-f');
  t.same(
    files.map((f) => f.replace('/usr/local/etc/haproxy/', '')),
    ['global.cfg', 'defaults.cfg', 'compose.cfg'],
    'global, then the shared defaults, then the compose frontends and backends',
  );
  t.same(
    balancer.volumes,
    [`${join(ROOT, 'deploy/haproxy')}:/usr/local/etc/haproxy:ro`],
    'deploy/haproxy mounted where the command reads it',
  );
  const check = spawnSync(
    haproxyBinary,
    ['-c', ...['global.cfg', 'defaults.cfg', 'compose.cfg'].flatMap((f) => ['-f', join(HAPROXY_DIR, f)])],
    {
      encoding: 'utf8',
    },
  );
  t.equal(check.status, 0, `haproxy -c: ${check.stdout}${check.stderr}`);
  t.notMatch(check.stderr, /WARNING|ALERT/, 'without a warning');
});

t.test("one published address per app, in front of every replica; the gateway's forwarded calls through it too", async (t) => {
  const published = Object.fromEntries((balancer.ports ?? []).map((p) => [p.target, p.published]));
  t.equal(published[bindPort('lms_public')], 3000, 'LMS_PORT (3000) is the LMS frontend');
  t.equal(published[bindPort('gateway_public')], 3001, 'GATEWAY_PORT (3001) is the gateway frontend');
  t.notOk(published[bindPort('lms_internal')], 'the internal frontend is not published');
  t.equal(new URL(defaults('lms').PUBLIC_URL!).port, '3000', "LMS_PUBLIC_URL's default is the published LMS port");
  t.equal(new URL(defaults('gateway').PUBLIC_URL!).port, '3001', "GATEWAY_PUBLIC_URL's default is the published gateway port");
  for (const [frontend, backend] of [
    ['lms_public', 'lms'],
    ['lms_internal', 'lms'],
    ['gateway_public', 'gateway'],
  ] as const) {
    t.same(setting(section('frontend', frontend), 'default_backend'), [backend], `${frontend} → ${backend}`);
  }
  for (const service of ['lms', 'gateway']) {
    const [, count, target, ...options] = setting(section('backend', service), 'server-template')!;
    t.equal(target, `${service}:${defaults(service).PORT}`, `backend ${service}: the ${service} service's replicas on their PORT`);
    t.ok(Number(count) >= 3, `backend ${service}: room for ${count} replicas`);
    t.same(
      [option(options, 'resolvers'), option(options, 'init-addr')],
      ['docker', 'none'],
      'found through Docker DNS, none needed at start',
    );
    t.ok(options.includes('check'), 'health-checked');
  }
  const upstream = new URL(defaults('gateway').LMS_UPSTREAM_URL!);
  t.equal(
    `${upstream.hostname}:${upstream.port}`,
    `balancer:${bindPort('lms_internal')}`,
    "the gateway forwards to the balancer's internal LMS frontend",
  );
});

t.test("the demo partners file: browsers to the LMS's public address, which the gateway accepts", async (t) => {
  const [host] = resolved.services.gateway!.volumes!.find((v) => v.endsWith(':/config/partners.json:ro'))!.split(':');
  const file = JSON.parse(readFileSync(host!, 'utf8')) as { partners: PartnerEntry[] };
  for (const partner of file.partners) t.equal(partner.lmsUrl, defaults('lms').PUBLIC_URL, `${partner.iss}: lmsUrl is LMS_PUBLIC_URL`);
  const gateway = await startGateway(t, file.partners);
  t.equal(gateway.partners.size, file.partners.length, 'the gateway loads the file');
});

t.test('the health checks take a stopping replica out within its drain; compose waits for the rest', async (t) => {
  const settings = section('defaults');
  const serverDefaults = setting(settings, 'default-server')!;
  const inter = haproxyMs(option(serverDefaults, 'inter')!);
  const fall = Number(option(serverDefaults, 'fall'));
  const checkTimeout = haproxyMs(setting(settings, 'timeout check')![0]!);
  t.same(setting(settings, 'http-check send'), ['meth', 'GET', 'uri', '/readyz', 'ver', 'HTTP/1.1', 'hdr', 'Host', 'localhost']);
  t.same(setting(settings, 'http-check expect'), ['status', '200']);
  for (const service of ['lms', 'gateway']) {
    t.ok(
      inter * fall + checkTimeout < drainMs(service),
      `${service}: out after ${inter * fall + checkTimeout} ms at most (inter x fall + timeout check), under SHUTDOWN_DRAIN_MS ${drainMs(service)}`,
    );
    const grace = haproxyMs(resolved.services[service]!.stop_grace_period!);
    if (service === 'lms') {
      const jobsStopMs = Number(defaults('lms').JOBS_STOP_SECONDS) * 1000;
      t.ok(jobsStopMs < CLOSE_TIMEOUT_MS, `lms: JOBS_STOP_SECONDS ${jobsStopMs} ms < the ${CLOSE_TIMEOUT_MS} ms its close may take`);
      t.equal(defaults('lms').JOBS_WORKERS, 'on', 'lms: every replica runs the job queue');
    }
    t.ok(
      grace > drainMs(service) + CLOSE_TIMEOUT_MS,
      `${service}: stop_grace_period ${grace} ms > the drain + ${CLOSE_TIMEOUT_MS} ms for requests in flight`,
    );
  }
  // What the check asks: 200 while serving, 503 from the first moment of a stop.
  const lms = await startLms(t);
  const gateway = await startGateway(t, []);
  for (const [name, app] of [
    ['lms', lms.app],
    ['gateway', gateway],
  ] as const) {
    t.equal((await app.inject('/readyz')).statusCode, 200, `${name}: /readyz 200 while serving`);
    app.lifecycle.startDraining();
    t.equal((await app.inject('/readyz')).statusCode, 503, `${name}: /readyz 503 once stopping`);
    t.equal((await app.inject('/healthz')).statusCode, 200, `${name}: and still serving`);
  }
});

t.test('the balancer waits longer than any instance may on purpose, and retries only what cannot happen twice', async (t) => {
  const settings = section('defaults');
  const server = haproxyMs(setting(settings, 'timeout server')![0]!);
  const lms = defaults('lms');
  const databaseBound = Number(lms.DB_CONNECT_TIMEOUT_MS) + Number(lms.DB_STATEMENT_TIMEOUT_MS) + 1_000;
  t.ok(server > databaseBound, `timeout server ${server} ms > an LMS request's database bound ${databaseBound} ms`);
  t.ok(server > Number(defaults('gateway').UPSTREAM_TIMEOUT_MS), 'and > the gateway waiting for the LMS (UPSTREAM_TIMEOUT_MS)');
  t.same(setting(settings, 'option redispatch'), ['1'], 'a retry goes to another instance');
  t.ok(Number(setting(settings, 'retries')![0]) >= 2, 'retried at least twice');
  t.same(
    setting(settings, 'retry-on'),
    ['conn-failure', 'empty-response', 'junk-response'],
    'when no instance took the request or none answered it',
  );
  for (const service of ['lms', 'gateway']) {
    t.same(
      setting(section('backend', service), 'http-request disable-l7-retry'),
      ['if', 'METH_POST', '!{', 'req.hdr(idempotency-key)', '-m', 'found', '}'],
      `backend ${service}: a POST without an Idempotency-Key is never sent twice`,
    );
  }
});

t.test("client addresses: only the balancer's and the gateway's X-Forwarded-For is believed", async (t) => {
  const subnet = resolved.networks.default.ipam.config[0]!.subnet;
  t.equal(defaults('lms').TRUST_PROXY, subnet, "the LMS trusts the compose network's addresses");
  t.equal(defaults('gateway').TRUST_PROXY, subnet, 'so does the gateway');
  for (const frontend of ['lms_public', 'gateway_public']) {
    const lines = section('frontend', frontend).lines;
    const dropped = lines.indexOf('http-request del-header X-Forwarded-For');
    t.ok(
      dropped >= 0 && dropped < lines.indexOf('option forwardfor'),
      `${frontend}: a client's own X-Forwarded-For is dropped, then the balancer names the client`,
    );
  }
  t.notOk(
    section('frontend', 'lms_internal').lines.some((l) => l.includes('del-header')),
    "lms_internal keeps the gateway's header, which names the partner",
  );
});
