/**
 * One app under test, in its own process (so the load generator does not share its event loop):
 * the built LMS (`@lms/lms/app`) or gateway (`@lms/gateway/app`), exactly as the servers build
 * them, plus one empty route with a response schema (`GET /bench/empty`, the R0 baseline of the
 * same process setup), and for the gateway `/bench/redirect` (the SSO redirect ready: see
 * addReadyRedirect). Listens on 127.0.0.1 port 0 and tells the parent its URL over IPC.
 *
 * Settings come from the parent in BENCH_* variables (this is a bench tool, not a configured app):
 * - `lms`: BENCH_DATABASE_URL, BENCH_GATEWAY_SECRET, BENCH_CATALOG_CACHE_MS (default: the server's),
 *   BENCH_JOBS_WORKERS=off (the instance only enqueues), BENCH_RECEIPTS=off (receipts record nothing)
 * - `lms-pglite`: an in-memory PGlite, migrated and filled here with BENCH_PGLITE_COURSES synthetic
 *   courses; the API keys to accept are read from BENCH_KEYS_FILE (one `hash` per line)
 * - `gateway`: BENCH_PARTNERS_FILE, BENCH_GATEWAY_SECRET
 *
 * It answers the parent's IPC questions (see BenchChildMessage): its CPU time and how many
 * responses it has sent (CPU milliseconds per request), and, for the LMS, the SQL statements one
 * request sends, recorded at the driver as Drizzle hands them over (the per-route SQL baselines).
 */
import { readFile } from 'node:fs/promises';
import { apiKeys, createDb, type DbHandle, migrate } from '@lms/db';
import { seedSynthetic } from '@lms/db/seed';
import { SsoVerifyQuery, SsoVerifyResponses } from '@lms/contracts';
import { buildGateway, type GatewayApp } from '@lms/gateway/app';
import { GATEWAY_PROOF_PARAM, readUnverifiedToken, signGatewayProof } from '@lms/partner-auth';
import { testConfig as gatewayConfig } from '@lms/gateway/testing';
import { buildApp } from '@lms/lms/app';
import { loadConfig as loadLmsConfig } from '@lms/lms/config';
import { testConfig as lmsConfig } from '@lms/lms/testing';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CapturedStatement, ChildReply, ParentRequest } from './ipc.js';

const Empty = z.object({ success: z.literal(true) });

/**
 * R0: what a route costs in this process with nothing to do (hooks, schema serialization). And
 * `/bench/bytes/<n>`: n bytes of JSON ready in a Buffer, the ceiling for an answer that size.
 */
function addEmptyRoute(app: FastifyInstance) {
  app
    .withTypeProvider<ZodTypeProvider>()
    // Open to anyone (config.public): the LMS closes every route that declares no access rule.
    .get('/bench/empty', { config: { public: true }, schema: { response: { 200: Empty } } }, async () => ({ success: true as const }));
  const ready = new Map<number, Buffer>();
  app.get<{ Params: { size: string } }>('/bench/bytes/:size', { config: { public: true } }, async (request, reply) => {
    const size = Math.min(Number(request.params.size) || 0, 10_000_000);
    let body = ready.get(size);
    if (body === undefined) {
      body = Buffer.from(JSON.stringify({ success: true, pad: 'x'.repeat(Math.max(0, size - 27)) }));
      ready.set(size, body);
    }
    return reply.type('application/json; charset=utf-8').send(body);
  });
}

const env = process.env;
// Production logs at info; the bench keeps errors only (request logs would measure pino, not the code).
const logger = { level: 'error' } as const;

/**
 * `GET /bench/redirect?token=`: the gateway's 302 for that token as `/sso/verify` sends it (same
 * Location, cache-control and query schema), from an answer made once per token: what `/sso/verify`
 * costs without its three checks (the issuer read from the token, the caller IP, the proof's
 * HMAC). The route's floor, so the bench shows which part of the gap to R0 the checks are.
 */
function addReadyRedirect(app: GatewayApp) {
  const ready = new Map<string, string>();
  app.get(
    '/bench/redirect',
    {
      attachValidation: true,
      onRequest: async (_request, reply) => {
        reply.header('cache-control', 'no-store');
      },
      schema: { querystring: SsoVerifyQuery, response: SsoVerifyResponses },
    },
    async (request, reply) => {
      const token = request.query.token ?? '';
      let location = ready.get(token);
      if (location === undefined) {
        const partner = app.partners.find(readUnverifiedIssuer(token));
        const proof = signGatewayProof(app.gatewayConfig.GATEWAY_SECRET ?? '', token, Math.floor(Date.now() / 1000));
        location = `${partner?.lmsUrl ?? ''}/sso/verify?token=${token}&${GATEWAY_PROOF_PARAM}=${proof}`;
        ready.set(token, location);
      }
      return reply.redirect(location, 302);
    },
  );
}

function readUnverifiedIssuer(token: string): string {
  const read = readUnverifiedToken(token);
  return read.ok ? read.issuer : '';
}

/** The LMS's database handle (null for the gateway): statements are recorded at its driver. */
let lmsDb: DbHandle | null = null;

async function start(mode: string): Promise<FastifyInstance> {
  const gatewaySecret = env.BENCH_GATEWAY_SECRET;
  if (mode === 'gateway') {
    const app = await buildGateway({
      config: gatewayConfig({ PARTNERS_FILE: env.BENCH_PARTNERS_FILE, GATEWAY_SECRET: gatewaySecret }),
      logger,
      partnersWatch: { watch: false, pollIntervalMs: 3_600_000 },
    });
    addEmptyRoute(app as unknown as FastifyInstance);
    addReadyRedirect(app);
    return app as unknown as FastifyInstance;
  }
  if (mode === 'lms' || mode === 'lms-pglite') {
    const databaseUrl = mode === 'lms' ? env.BENCH_DATABASE_URL : undefined;
    const db = createDb({ databaseUrl, poolMax: 10 });
    lmsDb = db;
    if (mode === 'lms-pglite') {
      await migrate(db);
      const courses = Number(env.BENCH_PGLITE_COURSES ?? 1000);
      await seedSynthetic(db.db, { courses, students: 100, enrollments: 1000, completions: 5000 }, () => {}, { tag: 'pglite' });
      const [teacher] = (await db.db.execute<{ id: string }>(sql`select id from users where role = 'teacher' limit 1`)).rows;
      // biome-ignore lint/style/noNonNullAssertion: main.ts always passes BENCH_KEYS_FILE to this child.
      const hashes = (await readFile(env.BENCH_KEYS_FILE!, 'utf8')).split('\n').filter(Boolean);
      for (let i = 0; i < hashes.length; i += 1000) {
        await db.db
          .insert(apiKeys)
          .values(hashes.slice(i, i + 1000).map((keyHash) => ({ keyHash, prefix: 'lms_key_bench', userId: teacher.id, name: 'bench' })));
      }
    }
    const app = await buildApp({
      config: lmsConfig({
        DATABASE_URL: databaseUrl,
        GATEWAY_SECRET: gatewaySecret,
        DB_POOL_MAX: 10,
        // The server's default (testConfig turns sharing off for tests), unless the parent asks
        // for the uncached list (BENCH_CATALOG_CACHE_MS=0).
        CATALOG_CACHE_MS: Number(env.BENCH_CATALOG_CACHE_MS ?? loadLmsConfig({}).CATALOG_CACHE_MS),
        // An instance that only enqueues (BENCH_JOBS_WORKERS=off): its jobs wait, none runs beside the load.
        ...(env.BENCH_JOBS_WORKERS === 'off' ? { JOBS_WORKERS: 'off' as const } : {}),
      }),
      db,
      ownsDb: true,
      logger,
    });
    // BENCH_RECEIPTS=off: the domain's receipts record nothing (no notification row, no send job),
    // the baseline of row 15w. Not a setting of the LMS: receipts cannot be switched off in a
    // deployment (NOTIFICATIONS_DISABLED_KINDS refuses them, and a kind switched off is still
    // recorded, then skipped by its send job).
    if (env.BENCH_RECEIPTS === 'off') app.receipts.notify = async () => ({ id: 0, created: false });
    addEmptyRoute(app as unknown as FastifyInstance);
    return app as unknown as FastifyInstance;
  }
  throw new Error(`unknown mode ${mode}`);
}

/**
 * Records every statement sent through the driver client behind Drizzle (`$client.query`, as the
 * tests' query counter does), with when it started and ended, until stopped.
 */
function recordStatements(handle: DbHandle) {
  const client = (handle.db as unknown as { $client: { query: (...args: unknown[]) => unknown } }).$client;
  const original = client.query;
  const statements: CapturedStatement[] = [];
  client.query = function (this: unknown, ...args: unknown[]) {
    // node-postgres takes (text, values) or ({ text, values?, name?, rowMode? }, values?): Drizzle
    // passes the values beside the config object.
    const first = args[0] as string | { text: string; values?: unknown[]; name?: string; rowMode?: string };
    const values = Array.isArray(args[1]) ? args[1] : typeof first === 'string' ? [] : (first.values ?? []);
    const record: CapturedStatement =
      typeof first === 'string'
        ? { text: first, values, startMs: performance.now(), endMs: 0 }
        : { text: first.text, values, name: first.name, rowMode: first.rowMode, startMs: performance.now(), endMs: 0 };
    statements.push(record);
    const result = original.apply(this, args);
    const ended = () => {
      record.endMs = performance.now();
    };
    if (result instanceof Promise) result.then(ended, ended);
    return result;
  };
  return () => {
    client.query = original;
    return statements;
  };
}

const app = await start(process.argv[2] ?? '');
// Every response this process sends (bench routes included), counted at the HTTP server.
let responses = 0;
app.server.on('request', (_req, res) => res.once('finish', () => (responses += 1)));
const url = await app.listen({ port: 0, host: '127.0.0.1' });
const cookieName = (app as unknown as { sessionCookieName?: string }).sessionCookieName ?? null;
let stopRecording: (() => CapturedStatement[]) | null = null;
const reply = (message: ChildReply) => process.send?.(message);
reply({ type: 'listening', url, cookieName });
process.on('message', (message: ParentRequest) => {
  if (message.type === 'stats') {
    const cpu = process.cpuUsage();
    reply({ type: 'stats', cpuMicros: cpu.user + cpu.system, responses });
  } else if (message.type === 'record-sql') {
    if (lmsDb === null) return reply({ type: 'error', message: 'only the LMS records SQL' });
    stopRecording?.();
    stopRecording = recordStatements(lmsDb);
    reply({ type: 'recording' });
  } else if (message.type === 'recorded-sql') {
    const statements = stopRecording?.() ?? [];
    stopRecording = null;
    reply({ type: 'recorded', statements });
  }
});
process.on('disconnect', () => {
  void app.close().finally(() => process.exit(0));
});
process.on('SIGTERM', () => {
  void app.close().finally(() => process.exit(0));
});
