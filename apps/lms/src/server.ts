import { createDb, DataDirLockedError, type DbHandle, migrate } from '@lms/db';
import { seedDemo } from '@lms/db/seed';
import { sql } from 'drizzle-orm';
import { stopOnSignals } from '@lms/server-kit';
import { buildApp, type LmsApp } from './app.js';
import { ConfigError, databaseSettings, type LmsConfig, loadConfig } from './config.js';
import { DEMO_SEED_LOCK_ID, readDemoKey, saveDemoKey } from './demo-key.js';

/** The only file that listens: config, database, app, signals. */
async function main() {
  let config: LmsConfig;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }

  let db: DbHandle;
  try {
    db = createDb(databaseSettings(config));
  } catch (err) {
    // Another LMS or an lms-admin command holds the embedded database: say who, no stack trace.
    if (err instanceof DataDirLockedError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  if (config.MIGRATE_ON_START) await migrate(db);
  if (config.SEED_DEMO_ON_EMPTY) await seedWhenEmpty(db, config);

  const app = await buildApp({ config, db, ownsDb: true });
  if (!config.GATEWAY_SECRET) {
    // Said once at start, where the operator looks: every sign-in and course creation will fail.
    app.log.warn(
      'GATEWAY_SECRET is not set: partner SSO sign-ins and course creation are refused (set the same value on the LMS and the gateway)',
    );
  }

  stopOnSignals(app, config.SHUTDOWN_DRAIN_MS);

  if (config.METRICS_PORT !== 0) await serveMetrics(app, config);
  await app.listen({ port: config.PORT, host: config.HOST });
  const where = db.kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.DATA_DIR}`;
  const base = config.PUBLIC_URL.replace(/\/$/, '');
  const demoKey = db.kind === 'pglite' ? await readDemoKey(config.DATA_DIR) : null;
  console.log(
    [
      '',
      `  LMS ready at   ${base}   (database: ${where})`,
      `  API docs       ${base}/docs`,
      `  Dashboard      ${base}/dashboard`,
      `  Health         ${base}/healthz  ${base}/readyz`,
      ...(demoKey ? [`  Demo API key   ${demoKey}   (teacher@demo.lms; try: curl -H 'x-api-key: ${demoKey}' ${base}/api/courses)`] : []),
      '',
    ].join('\n'),
  );
}

/**
 * The Prometheus endpoint on its own listener (closed with the app). A port already taken stops
 * the start: another process there would answer the scrape with its own numbers.
 */
async function serveMetrics(app: LmsApp, config: LmsConfig) {
  try {
    const metrics = await app.metrics.listen({ host: config.METRICS_HOST, port: config.METRICS_PORT });
    app.log.info({ url: metrics.url }, 'metrics: Prometheus endpoint listening');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    console.error(
      `Cannot serve metrics on ${config.METRICS_HOST}:${config.METRICS_PORT} (${code}): set METRICS_PORT to a free port, or 0 for no metrics listener.`,
    );
    await app.close();
    process.exit(1);
  }
}

/**
 * First start on an empty database: add the demo data. On the embedded database the demo API
 * key is kept in DATA_DIR (mode 600) so later starts can print it; only its hash is in the database.
 */
async function seedWhenEmpty(db: DbHandle, config: LmsConfig) {
  const seeded = await db.withExclusiveLock(DEMO_SEED_LOCK_ID, async () => {
    const result = await db.db.execute<{ empty: boolean }>(
      sql`select not exists (select 1 from users) and not exists (select 1 from courses) as empty`,
    );
    if (!result.rows[0]?.empty) return null;
    console.log('  Empty database: adding the demo data (seed demo)...');
    return seedDemo(db.db);
  });
  if (!seeded?.apiKey) return;
  if (db.kind === 'pglite') {
    await saveDemoKey(config.DATA_DIR, seeded.apiKey);
  } else {
    console.log(`  Demo API key of ${seeded.teacherEmail} (shown once, only its hash is stored): ${seeded.apiKey}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
