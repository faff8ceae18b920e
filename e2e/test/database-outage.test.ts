import { randomUUID } from 'node:crypto';
import { createDb } from '@lms/db';
import { buildApp } from '@lms/lms/app';
import { testConfig as lmsTestConfig } from '@lms/lms/testing';
import { makePartnerKey, partnerClaims, signPartnerToken } from '@lms/partner-auth/testing';
import t from 'tap';
import { freePort, GATEWAY_SECRET, startGateway } from './helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): its database is a PostgreSQL URL nothing answers, whatever TEST_DATABASE_URL says.

// A partner creates a course through the gateway while the LMS's database is unreachable (nothing
// listens where it should be): the gateway relays the LMS's 503 and its Retry-After, so the
// partner's backend knows to retry shortly rather than give up.

const PARTNER_IP = '203.0.113.10';

t.test("course creation through the gateway while the LMS's database is down: the LMS's 503 and Retry-After", async (t) => {
  const db = createDb({
    databaseUrl: `postgres://postgres@127.0.0.1:${await freePort()}/lms`,
    connectTimeoutMs: 500,
    statementTimeoutMs: 500,
  });
  const lms = await buildApp({ config: lmsTestConfig({ GATEWAY_SECRET }), db, ownsDb: true, logger: false });
  const lmsUrl = await lms.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => lms.close());
  const iss = 'univ.example';
  const gateway = await startGateway(t, [{ iss, allowedIps: [`${PARTNER_IP}/32`], lmsUrl }]);

  const token = await signPartnerToken(await makePartnerKey('k1'), partnerClaims(iss));
  const res = await gateway.inject({
    method: 'POST',
    url: '/api/courses',
    remoteAddress: PARTNER_IP,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': 'outage-1' },
    payload: JSON.stringify({ institutionId: 1, teacherId: randomUUID(), name: 'Etika Profesi' }),
  });
  t.equal(res.statusCode, 503, res.body);
  t.equal(res.headers['retry-after'], '5', "the LMS's Retry-After reaches the partner");
  t.same(res.json(), { success: false, error: 'The service is temporarily unavailable (database); retry shortly' });
});
