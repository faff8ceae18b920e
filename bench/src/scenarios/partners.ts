import { randomUUID } from 'node:crypto';
import { signInMember } from '@lms/lms/sso';
import { signGatewayProof } from '@lms/partner-auth';
import { sql } from 'drizzle-orm';
import { BENCH_INSTITUTION_ID, BENCH_ISSUER, BENCH_POST_CODE, RETURNING_USERS } from '../fill.js';
import type { HttpLoad } from '../load.js';
import { CONNECTIONS } from '../options.js';
import { TokenPool } from '../tokens.js';
import type { ScenarioContext } from './context.js';

/** Rows 8 and 9: the SSO callback, the gateway's /sso/verify and course creation through the gateway. */
export async function partnerScenarios(ctx: ScenarioContext) {
  const { run, lms, gateway, fixtures, filled } = ctx;
  const GATEWAY_SECRET = ctx.options.gatewaySecret;
  const db = filled.handle.db;

  // 8. SSO callback: every request a fresh token; half returning members, half new ones.
  const runId = Date.now().toString(36);
  const ssoClaims = (i: number) =>
    i % 2 === 0
      ? {
          email: `bench-ret-${((i / 2) % RETURNING_USERS) + 1}@bench.test`,
          membershipId: `bench-ret-${((i / 2) % RETURNING_USERS) + 1}`,
          tier: 'anggota',
        }
      : { email: `bench-new-${runId}-${i}@bench.test`, membershipId: `bench-new-${runId}-${i}`, name: `Anggota Baru ${i}`, tier: 'umum' };
  const ssoPool = new TokenPool(fixtures, ssoClaims);
  const SSO_CONNECTIONS = 20;
  let directIndex = 0;
  await run.compare(
    {
      id: '8',
      scenario: `SSO callback, fresh tokens, new + returning users (${SSO_CONNECTIONS} connections)`,
      baselineName: 'signInMember() called directly (member, then jti + session in one statement)',
      kind: 'cost',
      target: { minRps: 1000, maxRatio: 1.5 },
    },
    run.tokenScenario('sso', ssoPool, (take) => ({
      url: lms.url,
      path: '/api/auth/sso/callback',
      connections: SSO_CONNECTIONS,
      expect: 302,
      // With the gateway's proof, as the gateway's redirect gives it (one HMAC, the gateway's cost).
      perRequest: () => {
        const token = take();
        return { path: `/api/auth/sso/callback?token=${token}&proof=${signGatewayProof(GATEWAY_SECRET, token, Date.now() / 1000)}` };
      },
    })),
    () =>
      run.measureLoop(
        'signInMember() called directly (member, then jti + session in one statement)',
        // The endpoint's database work, called directly: the same function (domain/sso.ts), driver and pool size.
        async () => {
          const claims = ssoClaims(directIndex++ + 1_000_000);
          const signIn = await signInMember(
            db,
            {
              issuer: BENCH_ISSUER,
              jti: randomUUID(),
              keepTokenUntil: new Date(Date.now() + 330_000),
              name: undefined,
              ...claims,
              tier: claims.tier as 'anggota',
            },
            new Date(),
            7 * 86_400_000,
          );
          if (signIn.outcome !== 'signed-in') throw new Error(`direct sign-in: ${signIn.outcome}`);
        },
        SSO_CONNECTIONS,
      ),
  );

  // 9. The gateway: /sso/verify against an empty route of the gateway; course creation through it against straight to the LMS.
  const verifyPool = new TokenPool(fixtures, (i) => ssoClaims(i));
  await verifyPool.fill(1);
  const verifyToken = verifyPool.take();
  const gatewayR0 = run.httpSide('gateway R0', { url: gateway.url, path: '/bench/empty', connections: CONNECTIONS, expect: 200 });
  await run.comparePaired(
    { id: '9a', scenario: 'gateway GET /sso/verify', baselineName: 'gateway R0', kind: 'throughput', target: { minRatio: 0.7 } },
    run.httpSide('gateway verify', { url: gateway.url, path: `/sso/verify?token=${verifyToken}`, connections: CONNECTIONS, expect: 302 }),
    gatewayR0,
  );
  // The same 302 (Location, headers, query schema) ready, without the three checks: what the
  // HTTP part of /sso/verify costs, so the gap between 9a and R0 is seen to be the checks'.
  await run.comparePaired(
    { id: '9f', scenario: 'gateway 302 of /sso/verify, ready (no checks)', baselineName: 'gateway R0', kind: 'throughput' },
    run.httpSide('gateway ready 302', {
      url: gateway.url,
      path: `/bench/redirect?token=${verifyToken}`,
      connections: CONNECTIONS,
      expect: 302,
    }),
    gatewayR0,
  );
  const createBody = JSON.stringify({
    institutionId: BENCH_INSTITUTION_ID,
    name: 'Kursus dari Mitra (bench)',
    teacherId: filled.teacherId,
    courseCode: BENCH_POST_CODE,
  });
  const postPool = new TokenPool(fixtures, () => ({}));
  const POST_CONNECTIONS = 1;
  const post = (url: string, extra: Record<string, string>) => (take: () => string) =>
    ({
      url,
      path: '/api/courses',
      method: 'POST',
      body: createBody,
      headers: { 'content-type': 'application/json', ...extra },
      connections: POST_CONNECTIONS,
      expect: 201,
      perRequest: () => ({ headers: { authorization: `Bearer ${take()}` } }),
    }) satisfies HttpLoad;
  await run.compare(
    {
      id: '9b',
      scenario: 'POST /api/courses through the gateway (1 connection)',
      baselineName: 'POST straight to the LMS',
      kind: 'added',
      target: { maxAddedP50: 2 },
    },
    run.tokenScenario('post via gateway', postPool, post(gateway.url, {})),
    () => run.tokenScenario('POST straight to the LMS', postPool, post(lms.url, { 'x-gateway-secret': GATEWAY_SECRET })),
  );
  await db.execute(sql`delete from courses where course_code = ${BENCH_POST_CODE}`);
}
