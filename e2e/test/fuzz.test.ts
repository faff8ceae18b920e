import { randomInt } from 'node:crypto';
import { generateSessionToken, sessions, users } from '@lms/db';
import { seedDemo } from '@lms/db/seed';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { makeTeacher, registerPemPartner, startGateway, startLms } from './helpers/services.js';

// A small, seeded, bounded fuzz test: generated query strings against the catalog routes and
// generated JSON bodies against the gateway's course creation (forwarded to a real LMS on a real
// database). Whatever the input, no answer is a 5xx. The seed is printed; replay a failure with
// FUZZ_SEED=<seed> npx tap test/fuzz.test.ts (in e2e/).

const QUERIES = 1_500;
const BODIES = 1_000;
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : randomInt(2 ** 31);

/** mulberry32: a tiny seeded PRNG, so one seed always yields the same inputs. */
function generator(seedValue: number) {
  let a = seedValue >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
type Gen = ReturnType<typeof generator>;

const EDGE_NUMBERS = [
  '0',
  '-1',
  '1',
  '2147483647',
  '2147483648',
  '4294967296',
  '1e15',
  '9007199254740993',
  '1.5',
  '0x10',
  ' 1',
  '1 ',
  '+1',
  '01',
  'NaN',
  'Infinity',
  '-0',
  '1e-7',
  '99999999999999999999999',
];
const EDGE_TEXT = [
  '',
  ' ',
  '%',
  '_',
  '\\',
  "'",
  '"',
  '\u0000',
  'a\u0000b',
  '\u001f',
  '\u007f',
  '\ud800',
  '😀',
  'é',
  'ﬀ',
  'İ',
  '<script>',
  "' OR 1=1 --",
  '%%',
  '_%_',
  'x'.repeat(201),
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
];
const QUERY_NAMES = [
  'page',
  'limit',
  'search',
  'categoryId',
  'sortBy',
  'courseId',
  'public',
  'token',
  'x',
  '__proto__',
  'constructor',
  'page[]',
  'search[0]',
];
const QUERY_VALUES = [...EDGE_NUMBERS, ...EDGE_TEXT, 'name', 'students', 'modules', 'uncategorized', 'false', 'TRUE'];

/** encodeURIComponent, with a lone surrogate (which it refuses) written as its raw UTF-8 bytes. */
function encode(value: string): string {
  let out = '';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    out += code >= 0xd800 && code <= 0xdfff ? '%ED%A0%80' : encodeURIComponent(ch);
  }
  return out;
}

/** One percent-encoded query value: sometimes raw bytes that are not UTF-8, or broken escapes. */
function encodeValue(g: Gen, value: string): string {
  const r = g.next();
  if (r < 0.1) return pickRawEscape(g);
  if (r < 0.15) return value.replace(/[\s\S]/g, (c) => (/[A-Za-z0-9]/.test(c) || g.chance(0.5) ? c : encode(c))).replace(/[&#\s]/g, encode);
  return encode(value);
}
function pickRawEscape(g: Gen): string {
  return g.pick(['%FF', '%C3%28', '%E0%80%80', '%', '%G1', '%00', '%2', '%ED%A0%80', '+', '%20%00%20', '%F0%9F%98']);
}

function randomQuery(g: Gen): string {
  const parts: string[] = [];
  const n = g.int(5);
  for (let i = 0; i < n; i++) {
    const name = g.chance(0.9) ? g.pick(QUERY_NAMES) : pickRawEscape(g);
    const value = g.chance(0.7) ? g.pick(QUERY_VALUES) : randomText(g, 12);
    parts.push(`${encode(name).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeValue(g, value)}`);
  }
  return parts.join('&');
}

function randomText(g: Gen, max: number): string {
  const alphabet = 'aZ09 -_.%\\\'"\u0000\u0001\u00e9\u4e2d\ud83d\ude00/?&=#+';
  let s = '';
  const n = g.int(max + 1);
  for (let i = 0; i < n; i++) s += alphabet[g.int(alphabet.length)];
  return s;
}

function randomValue(g: Gen, depth = 0): unknown {
  const r = g.next();
  if (r < 0.2) return g.pick(EDGE_TEXT);
  if (r < 0.35) return Number(g.pick(EDGE_NUMBERS.filter((n) => Number.isFinite(Number(n)))));
  if (r < 0.45) return randomText(g, 20);
  if (r < 0.5) return g.pick([true, false, null]);
  if (r < 0.55)
    return g.pick([
      '2026-01-31T09:00:00Z',
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59-01:00',
      '0001-01-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2026-01-31T09:00:00+14:00',
      '2026-01-31',
      '1000-01-01T00:00:00Z',
    ]);
  if (r < 0.6) return g.pick(['150000', '99.50', '-5', '1e3', '999999999999', '0.001', '1'.repeat(20)]);
  if (depth > 3) return g.int(10);
  if (r < 0.8) return Array.from({ length: g.int(4) }, () => randomValue(g, depth + 1));
  return Object.fromEntries(
    Array.from({ length: g.int(4) }, () => [g.pick(['a', 'name', '__proto__', 'constructor', '']), randomValue(g, depth + 1)]),
  );
}

const BODY_FIELDS = [
  'institutionId',
  'name',
  'teacherId',
  'courseCode',
  'coverPicture',
  'currency',
  'description',
  'startDate',
  'endDate',
  'enrollmentType',
  'instructor',
  'isPurchasable',
  'previewMode',
  'price',
  'type',
];

/** A course body: often valid except for a field or two, so the mutations reach the database. */
function randomBody(g: Gen, valid: Record<string, unknown>): string {
  const body: Record<string, unknown> = g.chance(0.7) ? { ...valid } : {};
  const changes = g.int(4);
  for (let i = 0; i < changes; i++) {
    const field = g.chance(0.9) ? g.pick(BODY_FIELDS) : randomText(g, 8);
    if (g.chance(0.1)) delete body[field];
    else body[field] = randomValue(g);
  }
  let text = JSON.stringify(body);
  const r = g.next();
  if (r < 0.05) {
    const depth = g.pick([31, 32, 33, 100, 10_000]);
    text = `{"name":"n","description":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  } else if (r < 0.1) {
    text = text.slice(0, g.int(text.length + 1)); // truncated
  } else if (r < 0.13) {
    text = g.pick(['', 'null', '[]', '1', '"x"', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '\u0000']);
  }
  return text;
}

t.test(`fuzz (seed ${seed})`, async (t) => {
  t.comment(`FUZZ_SEED=${seed}`);
  const g = generator(seed);
  const lms = await startLms(t);
  const db = lms.db.db;
  const demo = await seedDemo(db);
  const apiKey = demo.apiKey!;
  const { institutionId, teacherId } = await makeTeacher(db);
  // Bound to the institution, so a valid body reaches the database (201), not the rights check (403).
  const partner = await registerPemPartner(db, 'fuzz.example', [institutionId]);
  const gateway = await startGateway(t, [{ iss: partner.iss, allowedIps: ['203.0.113.0/24'], lmsUrl: lms.url }]);
  const [demoTeacher] = await db.select({ id: users.id }).from(users).where(eq(users.email, demo.teacherEmail));
  const session = generateSessionToken();
  await db.insert(sessions).values({ tokenHash: session.tokenHash, userId: demoTeacher!.id, expiresAt: new Date(Date.now() + 3_600_000) });
  const cookie = `${lms.app.sessionCookieName}=${session.token}`;
  const failures: string[] = [];
  const started = Date.now();
  const catalogStatuses = new Map<number, number>();

  for (let i = 0; i < QUERIES; i++) {
    const path = g.pick(['/api/courses', '/api/courses', '/api/recommended-courses', `/api/courses/${g.pick(EDGE_NUMBERS).trim() || '1'}`]);
    const query = randomQuery(g);
    const url = query ? `${path}?${query}` : path;
    // Sessions are not rate limited; the API key (its window: 100 a minute) gets a few of the requests.
    const res = await lms.app.inject({ url, headers: g.chance(0.04) ? { 'x-api-key': apiKey } : { cookie } });
    catalogStatuses.set(res.statusCode, (catalogStatuses.get(res.statusCode) ?? 0) + 1);
    if (res.statusCode >= 500) failures.push(`GET ${url} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
  }
  t.comment(`${QUERIES} catalog queries in ${Date.now() - started} ms; statuses ${JSON.stringify(Object.fromEntries(catalogStatuses))}`);
  t.ok(
    (catalogStatuses.get(200) ?? 0) > QUERIES / 10 && (catalogStatuses.get(400) ?? 0) > QUERIES / 10,
    'the queries reached both the handlers and the validator',
  );

  const bodiesStarted = Date.now();
  const statuses = new Map<number, number>();
  for (let i = 0; i < BODIES; i++) {
    const payload = randomBody(g, { institutionId, teacherId, name: 'Fuzz course' });
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${await partner.sign()}` };
    if (g.chance(0.2))
      headers['idempotency-key'] = g.chance(0.8) ? `fuzz-${g.int(50)}` : randomText(g, 10).replace(/[^\x20-\x7e]/g, '') || 'k';
    const res = await gateway.inject({ method: 'POST', url: '/api/courses', remoteAddress: '203.0.113.9', headers, payload });
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    if (res.statusCode >= 500) failures.push(`POST /api/courses ${payload.slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
  }
  t.comment(`${BODIES} course bodies in ${Date.now() - bodiesStarted} ms; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  t.ok((statuses.get(201) ?? 0) > 0 && (statuses.get(400) ?? 0) > 0, 'the bodies reached both the database and the validator');
  t.same(failures.slice(0, 10), [], `no 5xx (seed ${seed}; ${failures.length} failures)`);
});
