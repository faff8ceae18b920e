import { MAX_TOKEN_BYTES, Reasons } from '@lms/partner-auth';
import t from 'tap';
import { invalidTokenLabel, REPLAYED_TOKEN_REASON, ssoReasonLabel, UNVERIFIABLE_TOKEN_REASON } from '../../src/metrics/sso-reasons.js';
import { buildTestApp } from '../helpers/app.js';
import { creationHeaders, makeCourseCreator } from '../helpers/course-creation.js';
import { outageApp, sleep } from '../helpers/database-outage.js';
import { apiKeyFor, makeUser } from '../helpers/fixtures.js';
import { delta, type Scrape, scrape } from '../helpers/metrics.js';
import { addRateLimitedTestRoutes } from '../helpers/rate-limited-routes.js';
import { redisForTest, redisProxy } from '../helpers/redis.js';
import { callback, jwksServer, makePartnerKey, registerPartner, ssoToken } from '../helpers/sso.js';

const now = () => Math.floor(Date.now() / 1000);
const DURATION = 'lms_http_request_duration_seconds';
const requests = (method: string, route: string, status: number) => ({ method, route, status_code: String(status) });

t.test('a scrape after an SSO and catalog session: each counter moved by what the traffic did', async (t) => {
  const { app } = await buildTestApp(t, { config: { RATE_LIMIT_PER_MINUTE: 3 } });
  const metrics = await app.metrics.listen({ host: '127.0.0.1', port: 0 });
  const before = await scrape(metrics.url);
  t.equal(before.status, 200);
  t.match(before.contentType, /^text\/plain; version=0\.0\.4/, 'the Prometheus text format');

  // SSO: a partner whose keys are at a JWKS URL (a real local server).
  const key = await makePartnerKey('kid-1');
  const jwks = await jwksServer(t, () => [key]);
  await registerPartner(app.db, { issuer: 'partner.example', jwksUrl: jwks.jwksUrl });
  const token = ssoToken(key, 'partner.example', now());
  t.equal((await callback(app, token)).status, 302, 'signed in');
  t.equal((await callback(app, token)).reason, REPLAYED_TOKEN_REASON, 'the same token again: replayed');
  t.equal((await callback(app, ssoToken(key, 'partner.example', now()), { proof: null })).error, 'invalid_token', 'no gateway proof');
  t.equal((await callback(app, ssoToken(key, 'partner.example', now() - 200, { exp: now() - 100 }))).reason, Reasons.expired);
  t.equal((await callback(app, ssoToken(key, 'stranger.example', now()))).reason, Reasons.unsupportedIssuer('stranger.example'));
  t.equal((await callback(app, ssoToken(key, 'partner.example', now(), { email: undefined }))).reason, 'missing_email');
  t.equal((await callback(app, undefined)).error, 'missing_token');

  // The catalog with an API key (limit 3 per window), a key that does not exist, a route that does not exist.
  const teacher = await makeUser(app.db, { role: 'teacher' });
  const apiKey = await apiKeyFor(app.db, teacher.id);
  const catalog = (k: string) => app.inject({ url: '/api/courses', headers: { 'x-api-key': k } });
  for (let i = 0; i < 3; i++) t.equal((await catalog(apiKey)).statusCode, 200);
  t.equal((await catalog(apiKey)).statusCode, 429, 'the fourth in the window is refused');
  t.equal((await catalog(`lms_key_${'A'.repeat(43)}`)).statusCode, 401, 'an unknown key');
  t.equal((await app.inject({ url: '/no/such/route/4f1c9a' })).statusCode, 404);

  // Course creation with an Idempotency-Key: created, replayed, the key with another body (each call with a fresh token).
  const creator = await makeCourseCreator(app.db, 'creator.example');
  const create = (body: object) =>
    app.inject({ method: 'POST', url: '/api/courses', headers: creationHeaders(creator.token(), 'idem-1'), payload: body });
  t.equal((await create(creator.body('Kursus A'))).statusCode, 201);
  const replay = await create(creator.body('Kursus A'));
  t.equal(replay.statusCode, 201);
  t.equal(replay.headers['idempotency-replayed'], 'true');
  t.equal((await create(creator.body('Kursus B'))).statusCode, 422);

  const after = await scrape(metrics.url);
  const moved = delta(before, after);

  const sso = (result: string, reason: string) => moved('lms_sso_sign_ins_total', { result, reason });
  t.equal(sso('signed_in', ''), 1, 'SSO: one sign-in');
  t.equal(sso('invalid_token', 'replayed'), 1, 'SSO: one replay');
  t.equal(sso('invalid_token', 'not_through_gateway'), 1, 'SSO: one without the gateway');
  t.equal(sso('invalid_token', 'expired'), 1, 'SSO: one expired');
  t.equal(sso('invalid_token', 'issuer'), 1, 'SSO: one unknown issuer');
  t.equal(sso('sso_failed', 'missing_email'), 1, 'SSO: one without e-mail');
  t.equal(sso('missing_token', ''), 1, 'SSO: one without a token');
  t.equal(moved('lms_sso_sign_ins_total'), 7, 'one count per sign-in attempt, none twice');
  t.notOk(after.text.includes('stranger.example'), "no issuer (an attacker's free text) in any label");

  t.equal(moved('lms_jwks_fetches_total'), 1, 'JWKS: one fetch (first contact), then the cached keys');
  t.equal(moved('lms_jwks_fetch_failures_total'), 0);
  t.equal(jwks.hits(), 1);

  t.equal(moved('lms_rate_limit_decisions_total', { limiter: 'api_key', decision: 'allowed' }), 3);
  t.equal(moved('lms_rate_limit_decisions_total', { limiter: 'api_key', decision: 'refused' }), 1);
  // Failed credentials counted per IP: the three refused tokens the verifier or the proof check
  // judged (no proof, expired, unknown issuer) and the unknown API key.
  t.equal(moved('lms_rate_limit_decisions_total', { limiter: 'failed_credentials', decision: 'allowed' }), 4);
  t.equal(moved('lms_rate_limit_decisions_total', { limiter: 'failed_credentials', decision: 'refused' }), 0);

  t.equal(moved(`${DURATION}_count`, requests('GET', '/api/courses', 200)), 3, 'HTTP: requests by route pattern and status');
  t.equal(moved(`${DURATION}_count`, requests('GET', '/api/courses', 429)), 1);
  t.equal(moved(`${DURATION}_count`, requests('GET', '/api/courses', 401)), 1);
  t.equal(moved(`${DURATION}_count`, requests('GET', '/api/auth/sso/callback', 302)), 1);
  t.equal(moved(`${DURATION}_count`, requests('GET', '/api/auth/sso/callback', 307)), 6);
  t.equal(moved(`${DURATION}_count`, requests('POST', '/api/courses', 201)), 2);
  t.equal(moved(`${DURATION}_count`, requests('POST', '/api/courses', 422)), 1);
  t.equal(moved(`${DURATION}_count`, requests('GET', 'unmatched', 404)), 1, 'an unknown URL is one label, not its path');
  t.notOk(after.text.includes('/no/such/route'), 'the raw URL is never a label');
  t.equal(moved(`${DURATION}_bucket`, { ...requests('GET', '/api/courses', 200), le: '+Inf' }), 3, 'the +Inf bucket holds every request');
  t.ok(moved(`${DURATION}_sum`, requests('GET', '/api/courses', 200)) > 0, 'durations in seconds are summed');

  t.equal(moved('lms_idempotent_course_creations_total', { outcome: 'created' }), 1, 'idempotency: created');
  t.equal(moved('lms_idempotent_course_creations_total', { outcome: 'replayed' }), 1, 'idempotency: replayed');
  t.equal(moved('lms_idempotent_course_creations_total', { outcome: 'key_reused' }), 1, 'idempotency: the key with another body');

  t.equal(after.value('lms_db_available'), 1, 'the database answers');
  if (app.dbHandle.kind === 'postgres') {
    t.ok(after.value('lms_db_pool_connections') >= 1, `pool: ${after.value('lms_db_pool_connections')} connection(s) open`);
    t.equal(after.value('lms_db_pool_max_connections'), 20, 'pool size (createTestDb: 20)');
    t.equal(after.value('lms_db_pool_waiting_requests'), 0);
    t.equal(after.value('lms_db_errors_total', { kind: 'unavailable' }), 0);
  } else {
    t.notOk(after.has('lms_db_pool_connections'), 'the embedded database has no pool to show');
  }
  t.notOk(after.has('lms_rate_limit_circuit_state'), 'no Redis, no circuit');
  t.ok(after.has('process_cpu_user_seconds_total'), 'process metrics: CPU');
  t.ok(after.has('nodejs_eventloop_lag_seconds'), 'process metrics: event loop lag');
  t.ok(after.has('nodejs_heap_size_used_bytes'), 'process metrics: heap');
});

t.test('the metrics are on their own listener only: the public port has no /metrics, the listener nothing else', async (t) => {
  const { app } = await buildTestApp(t);
  const metrics = await app.metrics.listen({ host: '127.0.0.1', port: 0 });
  const publicUrl = await app.listen({ host: '127.0.0.1', port: 0 });

  const onPublic = await fetch(`${publicUrl}/metrics`);
  t.equal(onPublic.status, 404, 'the public port does not serve /metrics');
  t.notMatch(await onPublic.text(), /lms_http_request_duration_seconds/);
  const withSlash = await fetch(`${publicUrl}/metrics/`);
  t.equal(withSlash.status, 404);

  const origin = metrics.url.replace(/\/metrics$/, '');
  t.equal((await fetch(`${origin}/api/courses`)).status, 404, 'the metrics listener serves no API route');
  t.equal((await fetch(`${origin}/`)).status, 404);
  t.equal((await fetch(metrics.url, { method: 'POST' })).status, 405);
  const head = await fetch(metrics.url, { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(await head.text(), '', 'HEAD: no body');
  t.equal((await fetch(`${metrics.url}?name[]=x`)).status, 200, 'a query string is ignored');
  t.match(metrics.url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  await t.rejects(app.metrics.listen({ host: '127.0.0.1', port: 0 }), /already open/, 'one listener per app');
});

t.test('two apps in one process keep their own counters', async (t) => {
  const { app: first, db } = await buildTestApp(t);
  const { app: second } = await buildTestApp(t, { db });
  const [one, two] = [
    await first.metrics.listen({ host: '127.0.0.1', port: 0 }),
    await second.metrics.listen({ host: '127.0.0.1', port: 0 }),
  ];
  for (let i = 0; i < 3; i++) await first.inject({ url: '/healthz' });
  const health = requests('GET', '/healthz', 200);
  t.equal((await scrape(one.url)).value(`${DURATION}_count`, health), 3);
  t.equal((await scrape(two.url)).value(`${DURATION}_count`, health), 0);
});

t.test('the metrics listener closes with the app', async (t) => {
  const { app } = await buildTestApp(t);
  const metrics = await app.metrics.listen({ host: '127.0.0.1', port: 0 });
  t.equal((await scrape(metrics.url)).status, 200);
  await app.close();
  await t.rejects(fetch(metrics.url), 'nothing listens once the app is closed');
});

t.test('a port already taken: listen() rejects with its code (server.ts then stops the start)', async (t) => {
  const { app: first, db } = await buildTestApp(t);
  const { app: second } = await buildTestApp(t, { db });
  const taken = await first.metrics.listen({ host: '127.0.0.1', port: 0 });
  await t.rejects(second.metrics.listen({ host: '127.0.0.1', port: taken.port }), { code: 'EADDRINUSE' });
});

t.test('Redis limiter state: the circuit and its counters, through a Redis that stalls', async (t) => {
  const { keyPrefix } = redisForTest(t, 'metrics');
  const proxy = await redisProxy(t);
  const { app } = await buildTestApp(t, {
    config: { REDIS_URL: proxy.url() },
    deps: {
      rateLimit: { redisKeyPrefix: keyPrefix, redisCommandTimeoutMs: 1_000, redisCircuit: { failureThreshold: 2, cooldownMs: 600_000 } },
      failedCredentials: { redisKeyPrefix: `${keyPrefix}failed:` },
    },
  });
  addRateLimitedTestRoutes(app);
  await app.ready();
  const metrics = await app.metrics.listen({ host: '127.0.0.1', port: 0 });
  const teacher = await makeUser(app.db, { role: 'teacher' });
  const key = await apiKeyFor(app.db, teacher.id);
  const get = () => app.inject({ url: '/t', headers: { 'x-api-key': key } });

  const apiKeyLimiter = { limiter: 'api_key' };
  // The first connection (through the proxy) may still be opening, or have failed once and be
  // retried, on a busy machine: until it is up, requests are answered from memory (that is the
  // design). Wait for the first request that asked Redis, then count from there.
  const before = await connectedThrough(get, metrics.url, apiKeyLimiter);
  for (let i = 0; i < 3; i++) t.equal((await get()).statusCode, 200);
  const healthy = await scrape(metrics.url);
  const since = (after: Scrape, name: string, labels: Record<string, string> = apiKeyLimiter) => delta(before, after)(name, labels);
  t.equal(healthy.value('lms_rate_limit_circuit_state', { ...apiKeyLimiter, state: 'closed' }), 1, 'closed while Redis answers');
  t.equal(healthy.value('lms_rate_limit_circuit_state', { ...apiKeyLimiter, state: 'open' }), 0);
  t.equal(since(healthy, 'lms_rate_limit_redis_calls_total'), 3, 'three requests, three Redis calls');
  t.equal(since(healthy, 'lms_rate_limit_memory_answers_total'), 0, 'none answered from memory');
  t.equal(healthy.value('lms_rate_limit_redis_failures_total', apiKeyLimiter), 0);
  t.equal(
    healthy.value('lms_rate_limit_circuit_state', { limiter: 'failed_credentials', state: 'closed' }),
    1,
    'the failed-credential limiter has its own circuit',
  );

  proxy.proxy.stall();
  for (let i = 0; i < 5; i++) t.equal((await get()).statusCode, 200, 'answered (from memory) while Redis stalls');
  const stalled = await scrape(metrics.url);
  t.equal(stalled.value('lms_rate_limit_circuit_state', { ...apiKeyLimiter, state: 'open' }), 1, 'open after 2 timeouts');
  t.equal(stalled.value('lms_rate_limit_circuit_openings_total', apiKeyLimiter), 1);
  t.equal(stalled.value('lms_rate_limit_redis_failures_total', apiKeyLimiter), 2, 'two requests waited for the timeout');
  t.equal(since(stalled, 'lms_rate_limit_memory_answers_total'), 3, 'the other three did not ask Redis');
  t.equal(since(stalled, 'lms_rate_limit_decisions_total', { ...apiKeyLimiter, decision: 'allowed' }), 8);
  proxy.proxy.resume();
});

t.test('database cut: availability, outages and errors in the scrape; back when it answers', async (t) => {
  const { app, proxy, direct } = await outageApp(t, { db: { poolMax: 2, connectTimeoutMs: 500, statementTimeoutMs: 500 } });
  const metrics = await app.metrics.listen({ host: '127.0.0.1', port: 0 });
  const teacher = await makeUser(direct.db, { role: 'teacher' });
  const apiKey = await apiKeyFor(direct.db, teacher.id);
  const catalog = () => app.inject({ url: '/api/courses', headers: { 'x-api-key': apiKey } });
  t.equal((await catalog()).statusCode, 200);
  const up = await scrape(metrics.url);
  t.equal(up.value('lms_db_available'), 1);
  t.equal(up.value('lms_db_pool_max_connections'), 2);
  t.ok(up.value('lms_db_pool_connections') >= 1);

  // Stalled: the two connections of the pool hang on their statements; the other calls wait for
  // a free connection, and give up after DB_CONNECT_TIMEOUT_MS (pool_timeout).
  proxy.stall();
  const stalled = await Promise.all(Array.from({ length: 8 }, () => catalog()));
  const statuses = stalled.map((r) => r.statusCode);
  t.same(new Set(statuses), new Set([503]), 'every request answered 503');
  const during = await scrape(metrics.url);
  const errors = (kind: string) => during.value('lms_db_errors_total', { kind }) - up.value('lms_db_errors_total', { kind });
  t.comment(
    `stall, 8 concurrent requests on a pool of 2: unavailable=${errors('unavailable')} pool_timeout=${errors('pool_timeout')} ` +
      `connect=${errors('connect')}; available=${during.value('lms_db_available')}, outages=${during.value('lms_db_outages_total')}`,
  );
  t.equal(during.value('lms_db_available'), 0, 'unavailable while stalled');
  t.equal(during.value('lms_db_outages_total'), 1, 'one outage');
  t.ok(errors('unavailable') >= 1, 'statements that timed out are counted');
  t.ok(errors('pool_timeout') >= 1, 'calls that found no free connection are counted');

  proxy.resume();
  let back = 0;
  for (let i = 0; i < 40 && back !== 200; i++) {
    back = (await catalog()).statusCode;
    if (back !== 200) await sleep(100);
  }
  t.equal(back, 200, 'the catalog answers again');
  const recovered = await scrape(metrics.url);
  t.equal(recovered.value('lms_db_available'), 1, 'available again, without a restart');
  t.equal(recovered.value('lms_db_outages_total'), 1);
  t.equal(recovered.value('lms_db_pool_waiting_requests'), 0, 'nobody waits for a connection');
});

t.test('every reason the verifier and the callback give maps to a bounded label', async (t) => {
  const cases: Array<[string, string]> = [
    [Reasons.malformed, 'malformed'],
    [Reasons.tooLarge(MAX_TOKEN_BYTES), 'malformed'],
    [Reasons.missingIssuer, 'issuer'],
    [Reasons.unsupportedIssuer('evil.example" } injected'), 'issuer'],
    [Reasons.noKeyConfigured('partner.example'), 'issuer'],
    [Reasons.badSignature, 'signature'],
    [Reasons.expired, 'expired'],
    [Reasons.audience, 'audience'],
    [Reasons.lifetime, 'lifetime'],
    [Reasons.algorithm, 'header'],
    [Reasons.type, 'header'],
    [Reasons.crit, 'header'],
    [Reasons.missingKid, 'unknown_key'],
    [Reasons.unknownKid('random-kid-123', 'partner.example'), 'unknown_key'],
    [Reasons.jwksUnavailable('partner.example', 'no answer within 3000 ms'), 'jwks_unavailable'],
    [Reasons.subject(['member', 'umum']), 'wrong_token_kind'],
    [Reasons.notThroughGateway('the gateway proof has expired'), 'not_through_gateway'],
    [Reasons.gatewayNotConfigured, 'gateway_not_configured'],
    [REPLAYED_TOKEN_REASON, 'replayed'],
    [UNVERIFIABLE_TOKEN_REASON, 'verification_error'],
    ['"iat" claim timestamp check failed (it should be in the past)', 'lifetime'],
    ['"exp" claim must be after "iat"', 'lifetime'],
    ['"jti" claim must not be empty', 'claims'],
    ['"email" claim is longer than 254 characters', 'claims'],
    ['"kid" header parameter must be a string', 'claims'],
    ['missing required "jti" claim', 'claims'],
    ['something nobody foresaw', 'other'],
  ];
  for (const [reason, label] of cases) t.equal(invalidTokenLabel(reason), label, reason);
  t.equal(ssoReasonLabel('sso_failed', 'member_inactive'), 'member_inactive');
  t.equal(ssoReasonLabel('sso_failed', 'anything else'), 'other', 'an unknown sso_failed reason is not a new series');
  t.equal(ssoReasonLabel('missing_token', undefined), '');
});

/** The scrape after the first request that asked Redis (requests before it were answered from memory). */
async function connectedThrough(get: () => Promise<{ statusCode: number }>, url: string, labels: Record<string, string>): Promise<Scrape> {
  for (let tries = 0; tries < 100; tries++) {
    if ((await get()).statusCode !== 200) throw new Error('the limited route refused a request');
    const seen = await scrape(url);
    if (seen.value('lms_rate_limit_redis_calls_total', labels) > 0) return seen;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the limiter never asked Redis in 10 s');
}
