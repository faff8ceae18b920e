import { createDb, DataDirLockedError, type DbHandle, migrate } from '@lms/db';
import { DEMO_PARTNER, pointDemoPartnerAt, seedDemo } from '@lms/db/seed';
import { pointDemoPartnerEvents } from './domain/partner-events/endpoints.js';
import { sql } from 'drizzle-orm';
import { orExit, serveMetrics, stopOnSignals } from '@lms/server-kit';
import { buildApp } from './app.js';
import { ConfigError, databaseSettings, type LmsConfig, loadConfig } from './config.js';
import { DEMO_SEED_LOCK_ID, readDemoKey, saveDemoKey } from './demo-key.js';

/** The only file that listens: config, database, app, signals. */
async function main() {
  const config = await orExit(() => loadConfig(), ConfigError);
  // Another LMS or an lms-admin command holding the embedded database is an operator's mistake too: say who, no stack trace.
  const db = await orExit(() => createDb(databaseSettings(config)), DataDirLockedError);
  if (config.MIGRATE_ON_START) await migrate(db);
  if (config.SEED_DEMO_ON_EMPTY) await seedWhenEmpty(db, config);
  if (config.DEMO_PARTNER_JWKS_URL && (await pointDemoPartnerAt(db.db, config.DEMO_PARTNER_JWKS_URL))) {
    console.log(`  The demo partner's keys are now read from ${config.DEMO_PARTNER_JWKS_URL} (DEMO_PARTNER_JWKS_URL)`);
  }
  if (config.DEMO_PARTNER_WEBHOOK_URL || config.DEMO_PARTNER_MEMBER_CHECK_URL) {
    await pointDemoPartnerEvents(db.db, DEMO_PARTNER.issuer, {
      webhookUrl: config.DEMO_PARTNER_WEBHOOK_URL,
      secret: config.DEMO_PARTNER_WEBHOOK_SECRET,
      memberCheckUrl: config.DEMO_PARTNER_MEMBER_CHECK_URL,
    });
  }

  const app = await buildApp({ config, db, ownsDb: true, markdown: { startWorker: true } });
  if (!config.GATEWAY_SECRET) {
    // Said once at start, where the operator looks: every sign-in and course creation will fail.
    app.log.warn(
      'GATEWAY_SECRET is not set: partner SSO sign-ins and course creation are refused (set the same value on the LMS and the gateway)',
    );
  }

  stopOnSignals(app, config.SHUTDOWN_DRAIN_MS);

  if (config.METRICS_PORT !== 0) await serveMetrics(app, app.metrics, config);
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
    return seedDemo(db.db, { demoPartnerJwksUrl: config.DEMO_PARTNER_JWKS_URL });
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
