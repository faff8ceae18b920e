/**
 * One app under test, in its own process (so the load generator does not share its event loop):
 * the built LMS (`@lms/lms/app`) or gateway (`@lms/gateway/app`), exactly as the servers build
 * them, plus one empty route with a response schema (`GET /bench/empty`, the R0 baseline of the
 * same process setup). Listens on 127.0.0.1 port 0 and tells the parent its URL over IPC.
 *
 * Settings come from the parent in BENCH_* variables (this is a bench tool, not a configured app):
 * - `lms`: BENCH_DATABASE_URL, BENCH_GATEWAY_SECRET, BENCH_CATALOG_CACHE_MS (default: the server's)
 * - `lms-pglite`: an in-memory PGlite, migrated and filled here with BENCH_PGLITE_COURSES synthetic
 *   courses; the API keys to accept are read from BENCH_KEYS_FILE (one `hash` per line)
 * - `gateway`: BENCH_PARTNERS_FILE, BENCH_GATEWAY_SECRET
 */
import { readFile } from 'node:fs/promises';
import { apiKeys, createDb, migrate } from '@lms/db';
import { seedSynthetic } from '@lms/db/seed';
import { buildGateway } from '@lms/gateway/app';
import { testConfig as gatewayConfig } from '@lms/gateway/testing';
import { buildApp } from '@lms/lms/app';
import { loadConfig as loadLmsConfig } from '@lms/lms/config';
import { testConfig as lmsConfig } from '@lms/lms/testing';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';

const Empty = z.object({ success: z.literal(true) });

/**
 * R0: what a route costs in this process with nothing to do (hooks, schema serialization). And
 * `/bench/bytes/<n>`: n bytes of JSON ready in a Buffer, the ceiling for an answer that size.
 */
function addEmptyRoute(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().get('/bench/empty', { schema: { response: { 200: Empty } } }, async () => ({ success: true as const }));
  const ready = new Map<number, Buffer>();
  app.get<{ Params: { size: string } }>('/bench/bytes/:size', async (request, reply) => {
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

async function start(mode: string): Promise<FastifyInstance> {
  const gatewaySecret = env.BENCH_GATEWAY_SECRET;
  if (mode === 'gateway') {
    const app = await buildGateway({
      config: gatewayConfig({ PARTNERS_FILE: env.BENCH_PARTNERS_FILE, GATEWAY_SECRET: gatewaySecret }),
      logger,
      partnersWatch: { watch: false, pollIntervalMs: 3_600_000 },
    });
    addEmptyRoute(app as unknown as FastifyInstance);
    return app as unknown as FastifyInstance;
  }
  if (mode === 'lms' || mode === 'lms-pglite') {
    const databaseUrl = mode === 'lms' ? env.BENCH_DATABASE_URL : undefined;
    const db = createDb({ databaseUrl, poolMax: 10 });
    if (mode === 'lms-pglite') {
      await migrate(db);
      const courses = Number(env.BENCH_PGLITE_COURSES ?? 1000);
      await seedSynthetic(db.db, { courses, students: 100, enrollments: 1000, completions: 5000 }, () => {}, { tag: 'pglite' });
      const [teacher] = (await db.db.execute<{ id: string }>(sql`select id from users where role = 'teacher' limit 1`)).rows;
      // biome-ignore lint/style/noNonNullAssertion: main.ts always passes BENCH_KEYS_FILE to this child.
      const hashes = (await readFile(env.BENCH_KEYS_FILE!, 'utf8')).split('\n').filter(Boolean);
      for (let i = 0; i < hashes.length; i += 1000) {
        await db.db.insert(apiKeys).values(
          hashes.slice(i, i + 1000).map((keyHash) => ({ keyHash, prefix: 'lms_key_bench', userId: teacher.id, name: 'bench' })),
        );
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
      }),
      db,
      ownsDb: true,
      logger,
    });
    addEmptyRoute(app as unknown as FastifyInstance);
    return app as unknown as FastifyInstance;
  }
  throw new Error(`unknown mode ${mode}`);
}

const app = await start(process.argv[2] ?? '');
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url });
process.on('disconnect', () => {
  void app.close().finally(() => process.exit(0));
});
process.on('SIGTERM', () => {
  void app.close().finally(() => process.exit(0));
});
