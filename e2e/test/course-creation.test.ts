import { createServer } from 'node:net';
import { OPEN_ENDED_END_DATE } from '@lms/contracts';
import { courses, generateSessionToken, idempotencyKeys, sessions } from '@lms/db';
import { count, eq } from 'drizzle-orm';
import t from 'tap';
import { GATEWAY_SECRET, makeTeacher, registerPemPartner, startGateway, startLms } from './helpers/services.js';

// Partner course creation through the gateway, with the real LMS on a loopback port and a real
// database: the gateway checks the issuer and caller IP, the LMS the gateway credential, the
// bearer token and the body.

const PARTNER_IP = '203.0.113.10';

t.test('course creation through the gateway', async (t) => {
  const lms = await startLms(t);
  const db = lms.db.db;
  const { institutionId, teacherId } = await makeTeacher(db);
  const partner = await registerPemPartner(db, 'univ.example', [institutionId]);
  const other = await registerPemPartner(db, 'assoc.example', [institutionId]);
  const gateway = await startGateway(t, [
    { iss: partner.iss, allowedIps: [`${PARTNER_IP}/32`], lmsUrl: lms.url },
    { iss: other.iss, allowedIps: ['198.51.100.0/24'], lmsUrl: lms.url },
  ]);

  const post = async (body: unknown, init: { token?: string | null; ip?: string; headers?: Record<string, string>; raw?: string } = {}) => {
    const token = init.token === undefined ? await partner.sign() : init.token;
    return gateway.inject({
      method: 'POST',
      url: '/api/courses',
      remoteAddress: init.ip ?? PARTNER_IP,
      headers: {
        'content-type': 'application/json',
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...init.headers,
      },
      payload: init.raw ?? JSON.stringify(body),
    });
  };
  const valid = () => ({ institutionId, teacherId, name: 'Etika Profesi', price: '150000', startDate: '2026-12-01T09:00:00Z' });
  const courseCount = async () => (await db.select({ n: count() }).from(courses))[0]!.n;

  await t.test('creates a draft and answers the created record', async (t) => {
    const res = await post({ ...valid(), courseCode: 'EP-01', enrollmentType: 'open', type: 'scheduled', endDate: '2026-12-31T09:00:00Z' });
    t.equal(res.statusCode, 201, res.body);
    const body = res.json();
    t.equal(body.success, true);
    t.type(body.message, 'string');
    t.match(body.course, {
      institutionId,
      teacherId,
      name: 'Etika Profesi',
      courseCode: 'EP-01',
      price: '150000.00',
      currency: 'IDR',
      enrollmentType: 'open',
      type: 'scheduled',
      isPurchasable: true,
      previewMode: false,
      startDate: '2026-12-01T09:00:00.000Z',
      endDate: '2026-12-31T09:00:00.000Z',
    });
    t.type(body.course.id, 'number');
    t.ok(Date.parse(body.course.createdAt));

    const [row] = await db.select().from(courses).where(eq(courses.id, body.course.id));
    t.equal(row!.isPublished, false, 'created as a draft');

    // The teacher sees it among their own courses (drafts included) with a session.
    const { token, tokenHash } = generateSessionToken();
    await db.insert(sessions).values({ tokenHash, userId: teacherId, expiresAt: new Date(Date.now() + 3_600_000) });
    const list = await lms.app.inject({ url: '/api/courses', headers: { cookie: `${lms.app.sessionCookieName}=${token}` } });
    t.equal(list.statusCode, 200);
    t.ok(
      list.json().courses.some((c: { id: string }) => c.id === String(body.course.id)),
      'the draft is in the teacher list',
    );
    // ... and it is not buyer-visible: an API-key caller gets 404 on its detail.
    const detail = await lms.app.inject({
      url: `/api/courses/${body.course.id}`,
      headers: { cookie: `${lms.app.sessionCookieName}=${token}` },
    });
    t.equal(detail.json().course.isPublished, false);
  });

  await t.test('defaults: enrollmentType code, type self_paced, price 0; dates and cover are strings', async (t) => {
    const res = await post({ institutionId, teacherId, name: 'Minimal' });
    t.equal(res.statusCode, 201, res.body);
    const course = res.json().course;
    t.match(course, { enrollmentType: 'code', type: 'self_paced', price: '0.00', courseCode: '', coverPicture: '' });
    // As the catalog list reports a course without dates: start = creation time, end open (it runs on).
    t.equal(course.startDate, course.createdAt);
    t.equal(course.endDate, OPEN_ENDED_END_DATE);
  });

  await t.test('each body rule is a 400 naming the field', async (t) => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['wrong type', { ...valid(), institutionId: '1' }, 'institutionId'],
      ['empty name', { ...valid(), name: '' }, 'name'],
      ['blank name', { ...valid(), name: '   ' }, 'name'],
      ['bad enum', { ...valid(), enrollmentType: 'invite' }, 'enrollmentType'],
      ['bad type enum', { ...valid(), type: 'live' }, 'type'],
      ['bad date', { ...valid(), startDate: '2026-13-01' }, 'startDate'],
      ['end before start', { ...valid(), endDate: '2026-11-01T00:00:00Z' }, 'endDate'],
      ['bad price', { ...valid(), price: '-5' }, 'price'],
      ['missing teacherId', { institutionId, name: 'x' }, 'teacherId'],
      ['missing institutionId', { teacherId, name: 'x' }, 'institutionId'],
      ['unknown field', { ...valid(), publish: true }, 'publish'],
    ];
    const before = await courseCount();
    for (const [label, body, field] of cases) {
      const res = await post(body);
      t.equal(res.statusCode, 400, label);
      const json = res.json();
      t.equal(json.success, false, label);
      t.ok(
        json.details.some((d: { path: string }) => d.path === field),
        `${label}: details name ${field} (${JSON.stringify(json.details)})`,
      );
    }
    t.equal(await courseCount(), before, 'nothing created');
  });

  await t.test('hostile bodies are a 400 naming the field, through the gateway too', async (t) => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['NUL in name', { ...valid(), name: 'Etika\u0000' }, 'name'],
      ['NUL in description', { ...valid(), description: '\u0000' }, 'description'],
      ['NUL in teacherId', { ...valid(), teacherId: `${teacherId}\u0000` }, 'teacherId'],
      ['institutionId 2^31', { ...valid(), institutionId: 2147483648 }, 'institutionId'],
      ['institutionId 1e15', { ...valid(), institutionId: 1e15 }, 'institutionId'],
      ['year 0', { ...valid(), startDate: '0000-01-01T00:00:00Z' }, 'startDate'],
    ];
    const before = await courseCount();
    for (const [label, body, field] of cases) {
      const res = await post(body);
      t.equal(res.statusCode, 400, `${label}: ${res.body}`);
      t.ok(
        res.json().details?.some((d: { path: string }) => d.path === field),
        `${label}: details name ${field}`,
      );
    }
    // 10,000 levels: JSON.parse copes, JSON.stringify does not (the gateway answered 502).
    const deep = `{"institutionId":${institutionId},"teacherId":"${teacherId}","name":"x","description":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    for (const headers of [{}, { 'idempotency-key': 'deep-body' }] as Record<string, string>[]) {
      const res = await post(undefined, { raw: deep, headers });
      t.equal(res.statusCode, 400, res.body);
      t.same(res.json(), { success: false, error: 'Invalid request body: description: JSON nested deeper than 32 levels' });
    }
    t.equal(await courseCount(), before, 'nothing created');
  });

  await t.test(
    "the partner's rights: an unbound institution, a teacher of another institution are 403 naming the institution",
    async (t) => {
      const { institutionId: unbound, teacherId: unboundTeacher } = await makeTeacher(db);
      const before = await courseCount();
      const cases: Array<[string, Record<string, unknown>, string]> = [
        [
          'an institution not bound to the partner',
          { ...valid(), institutionId: unbound, teacherId: unboundTeacher },
          `Partner univ.example may not create courses for institution ${unbound}`,
        ],
        [
          'an unknown institution',
          { ...valid(), institutionId: 999_999 },
          'Partner univ.example may not create courses for institution 999999',
        ],
        [
          'a teacher of another institution',
          { ...valid(), teacherId: unboundTeacher },
          `teacherId ${unboundTeacher} is not an active teacher of institution ${institutionId}`,
        ],
        [
          'an unknown teacher',
          { ...valid(), teacherId: 'nobody' },
          `teacherId nobody is not an active teacher of institution ${institutionId}`,
        ],
      ];
      for (const [label, body, error] of cases) {
        const res = await post(body);
        t.equal(res.statusCode, 403, label);
        t.same(res.json(), { success: false, error }, label);
      }
      t.equal(await courseCount(), before, 'nothing created');
    },
  );

  await t.test("token kinds: a member's sign-in token is refused for course creation (401 with the reason)", async (t) => {
    const before = await courseCount();
    const ssoToken = await partner.sign({ sub: 'member', email: 'member@univ.example', membershipId: 'M-1' });
    const res = await post(valid(), { token: ssoToken });
    t.equal(res.statusCode, 401);
    t.same(res.json(), {
      success: false,
      error: 'This is a sign-in (SSO) token: it carries "email" or "membershipId". Course creation needs a bearer token without them.',
    });
    t.equal(await courseCount(), before, 'nothing created');
  });

  await t.test('token and IP errors in the catalog error shape: 401 for any token problem, 403 for the IP', async (t) => {
    const noIss = await partner.sign({ iss: undefined });
    const cases: Array<[string, Awaited<ReturnType<typeof post>>, number, string | RegExp]> = [
      ['no Authorization', await post(valid(), { token: null }), 401, 'token is required'],
      ['malformed token', await post(valid(), { token: 'not-a-jwt' }), 401, 'invalid token format'],
      ['no iss', await post(valid(), { token: noIss }), 401, 'missing issuer (iss) claim'],
      [
        'unknown issuer',
        await post(valid(), { token: await partner.sign({ iss: 'stranger.example' }) }),
        401,
        'unknown issuer: stranger.example',
      ],
      ['IP not allowed', await post(valid(), { ip: '192.0.2.1' }), 403, 'IP 192.0.2.1 is not whitelisted for issuer univ.example'],
      [
        'partner A token from partner B IP',
        await post(valid(), { token: await other.sign(), ip: PARTNER_IP }),
        403,
        /not whitelisted for issuer assoc.example/,
      ],
      [
        'expired token',
        await post(valid(), {
          token: await partner.sign({ exp: Math.floor(Date.now() / 1000) - 3600, iat: Math.floor(Date.now() / 1000) - 3700 }),
        }),
        401,
        /exp/,
      ],
      ['wrong audience', await post(valid(), { token: await partner.sign({ aud: 'terang.ai.evil' }) }), 401, /aud/],
    ];
    for (const [label, res, status, error] of cases) {
      t.equal(res.statusCode, status, label);
      t.match(res.json(), { success: false, error }, label);
    }
    // A flipped signature byte: the gateway lets it through (it does not verify), the LMS refuses it.
    const good = await partner.sign();
    const [h, p, s] = good.split('.');
    const flipped = `${h}.${p}.${s!.slice(0, -2)}${s!.slice(-2) === 'AA' ? 'AB' : 'AA'}`;
    const forged = await post(valid(), { token: flipped });
    t.equal(forged.statusCode, 401);
    t.match(forged.json(), { success: false, error: 'signature verification failed' });
  });

  await t.test('a token works once', async (t) => {
    const token = await partner.sign();
    t.equal((await post({ ...valid(), name: 'Once' }, { token })).statusCode, 201);
    const again = await post({ ...valid(), name: 'Twice' }, { token });
    t.equal(again.statusCode, 401);
    t.match(again.json(), { success: false, error: /already been used/ });
  });

  await t.test('the LMS refuses calls that do not come through the gateway', async (t) => {
    const direct = await lms.app.inject({
      method: 'POST',
      url: '/api/courses',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await partner.sign()}` },
      payload: valid(),
    });
    t.equal(direct.statusCode, 403);
    t.same(direct.json(), { success: false, error: 'Course creation is accepted only through the gateway' });
    const wrongSecret = await lms.app.inject({
      method: 'POST',
      url: '/api/courses',
      headers: {
        'content-type': 'application/json',
        'x-gateway-secret': `${GATEWAY_SECRET}x`,
        authorization: `Bearer ${await partner.sign()}`,
      },
      payload: valid(),
    });
    t.equal(wrongSecret.statusCode, 403);
  });

  await t.test('415 for a non-JSON body, 413 over the size limit, 400 for broken JSON', async (t) => {
    const form = await post(null, { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    t.equal(form.statusCode, 415);
    t.equal(form.json().success, false);
    const huge = await post({ ...valid(), description: 'x'.repeat(70 * 1024) });
    t.equal(huge.statusCode, 413);
    t.equal(huge.json().success, false);
    const broken = await post(null, { raw: '{"name": ' });
    t.equal(broken.statusCode, 400);
    t.equal(broken.json().success, false);
  });

  await t.test('Idempotency-Key: a retry returns the first response and creates nothing', async (t) => {
    const body = { ...valid(), name: 'Idempotent course' };
    const token = await partner.sign();
    const first = await post(body, { token, headers: { 'idempotency-key': 'order-1' } });
    t.equal(first.statusCode, 201);
    const before = await courseCount();
    // The same token again (a network retry that did not sign anew): refused, a jti works once.
    const sameToken = await post(body, { token, headers: { 'idempotency-key': 'order-1' } });
    t.equal(sameToken.statusCode, 401, 'a used token, even with its key');
    // A retry with a fresh token: the first response, replayed.
    const fresh = await post(body, { headers: { 'idempotency-key': 'order-1' } });
    t.equal(fresh.statusCode, 201);
    t.equal(fresh.headers['idempotency-replayed'], 'true');
    t.same(fresh.json(), first.json(), 'a fresh token with the same key: the very same response');
    t.equal(await courseCount(), before, 'no second course');

    const changed = await post({ ...body, name: 'Another name' }, { headers: { 'idempotency-key': 'order-1' } });
    t.equal(changed.statusCode, 422);
    t.match(changed.json(), { success: false, error: /different request body/ });

    // Another partner may use the same key for its own request.
    const otherGateway = await startGateway(t, [{ iss: other.iss, allowedIps: ['198.51.100.0/24'], lmsUrl: lms.url }]);
    const theirs = await otherGateway.inject({
      method: 'POST',
      url: '/api/courses',
      remoteAddress: '198.51.100.7',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await other.sign()}`, 'idempotency-key': 'order-1' },
      payload: body,
    });
    t.equal(theirs.statusCode, 201);
    t.not(theirs.json().course.id, first.json().course.id);

    const badKey = await post(body, { headers: { 'idempotency-key': 'has space' } });
    t.equal(badKey.statusCode, 400);
  });

  await t.test('20 concurrent retries with one key create one course', async (t) => {
    const body = { ...valid(), name: 'Concurrent course' };
    const before = await courseCount();
    const answers = await Promise.all(Array.from({ length: 20 }, async () => post(body, { headers: { 'idempotency-key': 'burst-1' } })));
    t.same(
      answers.map((r) => r.statusCode),
      Array(20).fill(201),
    );
    const ids = new Set(answers.map((r) => r.json().course.id));
    t.equal(ids.size, 1, 'every answer names the same course');
    t.equal(await courseCount(), before + 1, 'exactly one course created');
    const [stored] = await db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, 'burst-1'));
    t.equal(stored!.statusCode, 201);
  });
});

t.test('upstream failures: LMS down → 502, LMS too slow → 504', async (t) => {
  const lms = await startLms(t);
  const partner = await registerPemPartner(lms.db.db, 'univ.example');

  // A port nothing listens on.
  const closed = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  // A server that accepts connections and never answers.
  const silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const sockets = new Set<import('node:net').Socket>();
  silent.on('connection', (s) => sockets.add(s));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const silentPort = (silent.address() as { port: number }).port;

  const gateway = await startGateway(
    t,
    [
      { iss: 'univ.example', allowedIps: [`${PARTNER_IP}/32`], lmsUrl: `http://127.0.0.1:${closed}` },
      { iss: 'slow.example', allowedIps: [`${PARTNER_IP}/32`], lmsUrl: `http://127.0.0.1:${silentPort}` },
    ],
    { UPSTREAM_TIMEOUT_MS: 300 },
  );
  const slowPartner = await registerPemPartner(lms.db.db, 'slow.example');
  const body = { institutionId: 1, teacherId: 'x', name: 'Unreachable' };

  const down = await gateway.inject({
    method: 'POST',
    url: '/api/courses',
    remoteAddress: PARTNER_IP,
    headers: { authorization: `Bearer ${await partner.sign()}` },
    payload: body,
  });
  t.equal(down.statusCode, 502);
  t.same(down.json(), { success: false, error: 'The LMS could not be reached' });

  const slow = await gateway.inject({
    method: 'POST',
    url: '/api/courses',
    remoteAddress: PARTNER_IP,
    headers: { authorization: `Bearer ${await slowPartner.sign()}` },
    payload: body,
  });
  t.equal(slow.statusCode, 504);
  t.same(slow.json(), { success: false, error: 'The LMS did not answer within 300 ms' });
});

t.test('both OpenAPI documents describe POST /api/courses and its errors', async (t) => {
  const lms = await startLms(t);
  const gateway = await startGateway(t, [{ iss: 'univ.example', allowedIps: ['127.0.0.1/32'], lmsUrl: lms.url }]);
  const lmsDoc = (await lms.app.inject('/docs/json')).json();
  const gatewayDoc = (await gateway.inject('/docs/json')).json();
  for (const [name, doc, statuses] of [
    ['lms', lmsDoc, ['201', '400', '401', '403', '409', '413', '415', '422', '429', '503']],
    ['gateway', gatewayDoc, ['201', '400', '401', '403', '409', '413', '415', '422', '429', '502', '503', '504']],
  ] as const) {
    const op = doc.paths['/api/courses']?.post;
    t.ok(op, `${name} documents POST /api/courses`);
    t.same(Object.keys(op.responses).sort(), [...statuses].sort(), `${name}: every status`);
    t.match(op.description, /Idempotency-Key/);
  }
});
