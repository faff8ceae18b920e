import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
// @ts-expect-error -- the example partner backend is plain JavaScript, written to be copied.
import { createPartnerBackend } from '@lms/example-partner-backend';
import { buildGateway, type GatewayApp } from '@lms/gateway/app';
import type { GatewayConfig } from '@lms/gateway/config';
import { testConfig as gatewayTestConfig } from '@lms/gateway/testing';
import { type AppDeps, buildApp, type LmsApp } from '@lms/lms/app';
import type { LmsConfig } from '@lms/lms/config';
import { testConfig as lmsTestConfig } from '@lms/lms/testing';
import { type Db, institutions, partnerInstitutions, partnerKeys, partners, users } from '@lms/db';
import { createTestDb, type TestDb } from '@lms/db/testing';
import { seedDemo } from '@lms/db/seed';
import { makePartnerKey, partnerClaims, signPartnerToken } from '@lms/partner-auth/testing';
import { eq } from 'drizzle-orm';
import type { Test } from 'tap';

/** The PostgreSQL server for the tests' databases (TEST_DATABASE_URL); unset, the embedded database. */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;

export const GATEWAY_SECRET = 'e2e-gateway-secret-0123456789';

/** A loopback port free right now (for a server that must know its own URL before it listens). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A real LMS listening on a loopback port, on a throwaway database. `port` 0 picks any; give a
 * port (and PUBLIC_URL on it) when a browser talks to it, since the same-origin checks compare
 * the browser's Origin with PUBLIC_URL.
 */
export async function startLms(
  t: Test,
  config: Partial<LmsConfig> = {},
  port = 0,
  logger: AppDeps['logger'] = false,
): Promise<{ app: LmsApp; url: string; db: TestDb }> {
  const db = await createTestDb(testDatabaseUrl);
  const app = await buildApp({ config: lmsTestConfig({ GATEWAY_SECRET, ...config }), db, logger });
  const address = await app.listen({ port, host: '127.0.0.1' });
  t.teardown(async () => {
    await app.close();
    await db.destroy();
  });
  return { app, url: address, db };
}

export interface PartnerEntry {
  iss: string;
  allowedIps: string[];
  lmsUrl: string;
}

/** A gateway (not listening: tests inject with a chosen remoteAddress) with its own partners file. */
export async function startGateway(t: Test, entries: PartnerEntry[], config: Partial<GatewayConfig> = {}): Promise<GatewayApp> {
  const dir = await mkdtemp(path.join(tmpdir(), 'e2e-partners-'));
  const file = path.join(dir, 'partners.json');
  await writeFile(file, JSON.stringify({ partners: entries }));
  const app = await buildGateway({
    config: gatewayTestConfig({ PARTNERS_FILE: file, GATEWAY_SECRET, ...config }),
    logger: false,
    partnersWatch: { watch: false, pollIntervalMs: 60_000 },
  });
  t.teardown(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });
  return app;
}

/**
 * The demo partner's whole edge, as an operator sets it up: a listening gateway whose partners
 * file names the LMS (started first: the partner needs its URL), the example partner backend
 * (its own signing key in a temp directory), and the partner registered in the LMS with its JWKS
 * URL (as `lms-admin partner add --jwks-url`). Returns where the browser starts: the partner.
 */
export async function startDemoPartner(
  t: Test,
  lmsUrl: string,
  db: Db,
  options: { reuseSeeded?: boolean } = {},
): Promise<{ partnerUrl: string; gatewayUrl: string; iss: string; partnerId: number; key: unknown }> {
  const iss = 'demo-partner.local';
  const dataDir = await mkdtemp(path.join(tmpdir(), 'e2e-partner-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const gateway = await startGateway(t, [{ iss, allowedIps: ['127.0.0.1/32', '::1/128'], lmsUrl }]);
  const gatewayUrl = await gateway.listen({ port: 0, host: '127.0.0.1' });
  const quiet = { info() {}, warn() {}, error() {} };
  const { server, key } = await createPartnerBackend({ dataDir, issuer: iss, gatewayUrl, log: quiet });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const partnerUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const jwksUrl = `${partnerUrl}/.well-known/jwks.json`;
  // On the demo data (seedDemo) the partner exists, with its staff links: only its JWKS URL moves here.
  const [row] = options.reuseSeeded
    ? await db.update(partners).set({ jwksUrl }).where(eq(partners.issuer, iss)).returning({ id: partners.id })
    : await db.insert(partners).values({ issuer: iss, name: 'Demo Partner', jwksUrl }).returning({ id: partners.id });
  return { partnerUrl, gatewayUrl, iss, partnerId: row!.id, key };
}

export interface Partner {
  iss: string;
  kid: string;
  /** Signs a token with this partner's key; claims and header fields can be overridden. */
  sign(claims?: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
}

/**
 * Registers a partner with a PEM public key in the LMS database, bound to `institutionIds` (as
 * `lms-admin partner add --public-key ... --institution <id>`), and returns its signer. Its
 * tokens are course-creation (bearer) tokens unless a test adds `email` and `membershipId`.
 */
export async function registerPemPartner(db: Db, iss: string, institutionIds: number[] = []): Promise<Partner> {
  const key = await makePartnerKey(`${iss}-key-1`);
  const kid = key.kid;
  const [row] = await db.insert(partners).values({ issuer: iss, name: iss }).returning({ id: partners.id });
  await db.insert(partnerKeys).values({ partnerId: row!.id, kid, publicKeyPem: key.publicPem });
  for (const institutionId of institutionIds) await db.insert(partnerInstitutions).values({ partnerId: row!.id, institutionId });
  return {
    iss,
    kid,
    sign(claims = {}, header = {}) {
      // A claim given as undefined is left out of the token.
      return signPartnerToken(key, partnerClaims(iss, { sub: 'course-sync', ...claims }), header);
    },
  };
}

/** An institution and a teacher of it (bind it to a partner with registerPemPartner's `institutionIds`). */
export async function makeTeacher(db: Db): Promise<{ institutionId: number; teacherId: string }> {
  const [institution] = await db.insert(institutions).values({ name: 'E2E Institute' }).returning({ id: institutions.id });
  const [teacher] = await db
    .insert(users)
    .values({ email: `teacher.${randomUUID()}@example.test`, name: 'E2E Teacher', role: 'teacher', institutionId: institution!.id })
    .returning({ id: users.id });
  return { institutionId: institution!.id, teacherId: teacher!.id };
}

/**
 * The LMS on a free port with the demo data (seedDemo at `now`) and the demo partner in front of it,
 * as the README's walk-through has them: what the browser tests of the demo start from. `config`
 * adds to the LMS's (SMTP_URL for a test that reads the e-mails it sends).
 */
export async function startSeededDemo(t: Test, now = new Date(), config: Partial<LmsConfig> = {}) {
  const port = await freePort();
  const lmsUrl = `http://127.0.0.1:${port}`;
  const lms = await startLms(t, { ...config, PUBLIC_URL: lmsUrl }, port);
  const db = lms.db.db;
  await seedDemo(db, { now });
  // The seed registers the demo partner (JWKS on :3002 by default): point it at this run's partner.
  const { partnerUrl } = await startDemoPartner(t, lmsUrl, db, { reuseSeeded: true });
  return { lmsUrl, lms, db, partnerUrl };
}
