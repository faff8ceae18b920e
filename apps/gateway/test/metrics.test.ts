import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { buildGateway } from '../src/app.js';
import { testConfig } from '../src/testing.js';
import { scrape } from './helpers/metrics.js';
import { eventually, signPartnerToken, writePartnersFile } from './helpers/partners.js';

const PARTNER_IP = '203.0.113.10';
const DURATION = 'gateway_http_request_duration_seconds';

/** A local HTTP server standing for an LMS; `answer` decides each response (or never answers). */
async function fakeLms(t: Test, answer: (res: ServerResponse) => void): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A loopback port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
const closedPortUrl = async () => `http://127.0.0.1:${await freePort()}`;

t.test('a scrape after SSO hand-offs and forwarded course creations: each counter moved by what the traffic did', async (t) => {
  let status = 201;
  const working = await fakeLms(t, (res) => res.writeHead(status, { 'content-type': 'application/json' }).end('{"success":true}'));
  const hanging = await fakeLms(t, () => {});
  const partners = [
    { iss: 'partner-a.example', allowedIps: [`${PARTNER_IP}/32`], lmsUrl: working },
    { iss: 'partner-down.example', allowedIps: [`${PARTNER_IP}/32`], lmsUrl: await closedPortUrl() },
    { iss: 'partner-slow.example', allowedIps: [`${PARTNER_IP}/32`], lmsUrl: hanging },
  ];
  const file = await writePartnersFile(t, { partners });
  const app = await buildGateway({
    config: testConfig({ PARTNERS_FILE: file, UPSTREAM_TIMEOUT_MS: 200 }),
    logger: false,
    partnersWatch: { watch: false, debounceMs: 10, pollIntervalMs: 50 },
  });
  t.teardown(() => app.close());
  const metrics = await app.gatewayMetrics.listen({ host: '127.0.0.1', port: 0 });
  const before = await scrape(metrics.url);
  t.equal(before.status, 200);

  const verify = async (token: string, remoteAddress = PARTNER_IP) =>
    (await app.inject({ url: `/sso/verify?token=${encodeURIComponent(token)}`, remoteAddress })).statusCode;
  t.equal(await verify(await signPartnerToken('partner-a.example')), 302);
  t.equal(await verify(await signPartnerToken('partner-a.example')), 302);
  t.equal(await verify(await signPartnerToken('stranger.example')), 401);
  t.equal(await verify(await signPartnerToken('partner-a.example'), '192.0.2.66'), 403);
  t.equal(await verify('not-a-token'), 400);

  const bearer = async (iss: string) =>
    `Bearer ${await signPartnerToken(iss, { sub: 'course-sync', email: undefined, membershipId: undefined })}`;
  const create = async (authorization: string | undefined) =>
    (
      await app.inject({
        method: 'POST',
        url: '/api/courses',
        remoteAddress: PARTNER_IP,
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        payload: { institutionId: 1, teacherId: 't-1', name: 'Kursus' },
      })
    ).statusCode;
  t.equal(await create(await bearer('partner-a.example')), 201, 'forwarded, created');
  status = 409;
  t.equal(await create(await bearer('partner-a.example')), 409, "the LMS's 409 relayed");
  t.equal(await create(undefined), 401, 'no token: not forwarded');
  t.equal(await create(await bearer('partner-down.example')), 502, 'LMS unreachable');
  t.equal(await create(await bearer('partner-slow.example')), 504, 'LMS silent past UPSTREAM_TIMEOUT_MS');
  t.equal((await app.inject({ url: '/no/such/route/77' })).statusCode, 404);

  const after = await scrape(metrics.url);
  const moved = (name: string, labels: Record<string, string> = {}) => after.value(name, labels) - before.value(name, labels);
  const access = (route: string, decision: string) => moved('gateway_partner_access_total', { route, decision });
  t.equal(access('sso_verify', 'allowed'), 2);
  t.equal(access('sso_verify', 'unknown_issuer'), 1);
  t.equal(access('sso_verify', 'ip_not_allowed'), 1);
  t.equal(access('sso_verify', 'bad_token'), 1);
  t.equal(access('course_creation', 'allowed'), 4);
  t.equal(access('course_creation', 'bad_token'), 1);

  const upstream = (outcome: string, status_code: string) => moved('gateway_upstream_requests_total', { outcome, status_code });
  t.equal(upstream('answered', '201'), 1, 'upstream: created');
  t.equal(upstream('answered', '409'), 1, 'upstream: the LMS said 409');
  t.equal(upstream('unreachable', ''), 1, 'upstream: unreachable');
  t.equal(upstream('timeout', ''), 1, 'upstream: timed out');
  t.equal(moved('gateway_upstream_request_duration_seconds_count', { outcome: 'timeout' }), 1);
  t.ok(
    after.value('gateway_upstream_request_duration_seconds_sum', { outcome: 'timeout' }) >= 0.2,
    'the timeout waited UPSTREAM_TIMEOUT_MS',
  );

  const requests = (method: string, route: string, status_code: string) => moved(`${DURATION}_count`, { method, route, status_code });
  t.equal(requests('GET', '/sso/verify', '302'), 2, 'HTTP: by route pattern and status');
  t.equal(requests('GET', '/sso/verify', '401'), 1);
  t.equal(requests('GET', '/sso/verify', '403'), 1);
  t.equal(requests('GET', '/sso/verify', '400'), 1);
  for (const code of ['201', '409', '401', '502', '504']) t.equal(requests('POST', '/api/courses', code), 1, `POST /api/courses ${code}`);
  t.equal(requests('GET', 'unmatched', '404'), 1, 'an unknown URL is one label');
  t.notOk(after.text.includes('/no/such/route'), 'never the raw URL');
  t.notOk(after.text.includes('stranger.example'), 'never an issuer from a token');
  t.notOk(after.text.includes('192.0.2.66'), 'never a client IP');

  t.equal(after.value('gateway_partners'), 3);
  t.ok(after.has('process_cpu_user_seconds_total'), 'process metrics');
  t.ok(after.has('nodejs_eventloop_lag_seconds'));

  // A bad edit of the partners file is refused and counted; the registry in use stays.
  await writeFile(file, '{"partners": [ {"iss": ');
  t.ok(
    await eventually(async () => (await scrape(metrics.url)).value('gateway_partners_file_rejections_total') === 1),
    'the rejected edit is counted',
  );
  t.equal((await scrape(metrics.url)).value('gateway_partners'), 3, 'the last good registry stays');
});

t.test('the public port has no /metrics; the metrics listener serves nothing else; it closes with the app', async (t) => {
  const file = await writePartnersFile(t, { partners: [] });
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger: false, partnersWatch: { watch: false } });
  let closed = false;
  t.teardown(() => (closed ? undefined : app.close()));
  const metrics = await app.gatewayMetrics.listen({ host: '127.0.0.1', port: 0 });
  const publicUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  const onPublic = await fetch(`${publicUrl}/metrics`);
  t.equal(onPublic.status, 404, 'the public port does not serve /metrics');
  t.notMatch(await onPublic.text(), /gateway_http_request_duration_seconds/);
  const origin = metrics.url.replace(/\/metrics$/, '');
  t.equal((await fetch(`${origin}/sso/verify`)).status, 404, 'the metrics listener serves no gateway route');
  t.equal((await scrape(metrics.url)).status, 200);
  await app.close();
  closed = true;
  await t.rejects(fetch(metrics.url), 'closed with the app');
});

t.test('the built gateway serves /metrics on METRICS_PORT (server.ts), and closes it on SIGTERM', async (t) => {
  const file = await writePartnersFile(t, { partners: [] });
  const [port, metricsPort] = [await freePort(), await freePort()];
  const server = fileURLToPath(new URL('../dist/server.js', import.meta.url));
  const child = spawn(process.execPath, [server], {
    env: {
      PATH: process.env.PATH,
      PARTNERS_FILE: file,
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      SHUTDOWN_DRAIN_MS: '0',
      LOG_LEVEL: 'warn',
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
  t.ok(await eventually(async () => out.includes('Gateway ready at') || child.exitCode !== null), 'started');
  t.match(out, 'Gateway ready at');

  t.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
  t.equal((await fetch(`http://127.0.0.1:${port}/metrics`)).status, 404, 'not on the public port');
  const scraped = await scrape(`http://127.0.0.1:${metricsPort}/metrics`);
  t.equal(scraped.status, 200);
  t.equal(scraped.value(`${DURATION}_count`, { route: '/healthz', status_code: '200' }), 1);
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'clean exit');
  await t.rejects(fetch(`http://127.0.0.1:${metricsPort}/metrics`), 'the metrics listener closed with it');
});
