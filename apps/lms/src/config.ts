import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { DbConfig } from '@lms/db';
import { parseTrustProxy } from '@lms/partner-auth';
import { authoringBodyLimitEnv, checkConnectionLimits, ConfigError, connectionLimitsEnv, deriveSetting, parseEnv } from '@lms/server-kit';
import { z } from 'zod';

import { boolFlag, monthDay, optional, timeZone } from './config-schema.js';
import { checkWhatsAppPair, dkimSettings, NOTIFICATION_SECRET_VARIABLES, notificationEnv } from './config-notifications.js';

export { dkimSettings, emailSenderOptions, NOTIFICATION_SECRET_VARIABLES } from './config-notifications.js';
export { MONTH_DAY } from './config-schema.js';

const Env = z.object({
  PORT: optional(z.coerce.number().int().min(0).max(65535)).default(3000),
  HOST: optional(z.string()).default('0.0.0.0'),
  /** Where people reach the LMS; decides Secure cookies (https) and the URLs printed at start. */
  PUBLIC_URL: optional(z.url()).default('http://localhost:3000'),
  /**
   * The Prometheus endpoint (`GET /metrics`) listens here, apart from the public port: on the
   * loopback by default, so nothing off the machine reaches it unless an operator says so
   * (METRICS_HOST=0.0.0.0 in a container whose network Prometheus shares). 0: no metrics listener.
   */
  METRICS_PORT: optional(z.coerce.number().int().min(0).max(65535)).default(9464),
  METRICS_HOST: optional(z.string()).default('127.0.0.1'),
  LOG_LEVEL: optional(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])).default('info'),
  /** PostgreSQL. Unset: embedded PGlite in DATA_DIR. */
  DATABASE_URL: optional(z.url()),
  DATA_DIR: optional(z.string()).default('.data/pglite'),
  DB_POOL_MAX: optional(z.coerce.number().int().min(1).max(200)).default(10),
  /** PostgreSQL: how long a database call waits for a connection (a new one, or a free one of the pool). */
  DB_CONNECT_TIMEOUT_MS: optional(z.coerce.number().int().min(100).max(120_000)).default(3_000),
  /**
   * PostgreSQL: the server's statement_timeout; the LMS gives a statement up 1 s later if the
   * server does not answer at all (stalled). 0: no limit (e.g. a long one-off migration).
   */
  DB_STATEMENT_TIMEOUT_MS: optional(z.coerce.number().int().min(0).max(3_600_000)).default(5_000),
  /** Apply pending migrations when the server starts. */
  MIGRATE_ON_START: optional(boolFlag).default(true),
  /** Fill an empty database with the demo data when the server starts. Default: true on the embedded database, false with DATABASE_URL. */
  SEED_DEMO_ON_EMPTY: optional(boolFlag),
  /**
   * Where the demo partner (examples/partner-backend) serves its keys, when it does not run on its
   * default port: the demo data is seeded with it, and on every start the demo partner's JWKS URL
   * is set to it. The one-command start sets it from PARTNER_PORT. Unset: the seed's own
   * (http://127.0.0.1:3002/.well-known/jwks.json), and a start changes nothing.
   */
  DEMO_PARTNER_JWKS_URL: optional(z.url()),
  /**
   * The one-command start only: the demo partner's event endpoint and its secret (whsec_...),
   * and its member-status URL, set on the demo partner at start (scripts/start.mjs).
   */
  DEMO_PARTNER_WEBHOOK_URL: optional(z.url()),
  DEMO_PARTNER_WEBHOOK_SECRET: optional(z.string().regex(/^whsec_[A-Za-z0-9+/=]{20,}$/, 'whsec_ followed by base64')),
  DEMO_PARTNER_MEMBER_CHECK_URL: optional(z.url()),
  /** Rate-limit windows shared by every instance (used token ids are in the database). Unset: in memory. */
  REDIS_URL: optional(z.url()),
  /**
   * The start of every Redis key the LMS writes, so that two deployments (or a test run) can share
   * one Redis without counting in each other's windows.
   */
  REDIS_KEY_PREFIX: optional(z.string().max(100)).default('lms:'),
  /** CIDRs of our own reverse proxies whose X-Forwarded-For is believed. Comma-separated. */
  TRUST_PROXY: optional(z.string()).default(''),
  SESSION_TTL_HOURS: optional(
    z.coerce
      .number()
      .positive()
      .max(24 * 90),
  ).default(24 * 7),
  /**
   * Shared with the gateway: the credential it adds to forwarded partner calls, and the key of its
   * proof that an SSO sign-in came through it. Unset: SSO and course creation are refused.
   */
  GATEWAY_SECRET: optional(z.string().min(16)),
  /**
   * Requests one API key may make to the rate-limited routes (catalog, course detail, bundles,
   * progress) in any sliding minute; past it, 429 with Retry-After. The spec's 100 by default.
   */
  RATE_LIMIT_PER_MINUTE: optional(z.coerce.number().int().min(1).max(1_000_000)).default(100),
  /**
   * Failed credentials (unknown or revoked API keys, session cookies that match no session,
   * refused SSO tokens) allowed per client IP in any sliding minute; past it, 429 without lookup.
   */
  FAILED_AUTH_PER_MINUTE: optional(z.coerce.number().int().min(1).max(1_000_000)).default(300),
  /**
   * Requests one signed-in person may make in any sliding minute to the reads that cost most
   * (unpaginated and paged course lists, bundles, metrics, the pages built on them); past it, 429.
   */
  SESSION_RATE_LIMIT_PER_MINUTE: optional(z.coerce.number().int().min(1).max(1_000_000)).default(60),
  /**
   * Authoring requests (the authoring API, the studio's form posts, course creation) one person, or
   * one partner, may make in any sliding minute; past it, 429. Each write may rewrite a course and
   * refresh the shared catalog answers.
   */
  AUTHORING_RATE_LIMIT_PER_MINUTE: optional(z.coerce.number().int().min(1).max(1_000_000)).default(60),
  /**
   * Documents one signed-in person may have made in any sliding minute (the credits PDF and CSV, a
   * certificate's PDF, a course's learners CSV); past it, 429. A PDF costs tens of milliseconds of CPU.
   */
  DOCUMENT_RATE_LIMIT_PER_MINUTE: optional(z.coerce.number().int().min(1).max(1_000_000)).default(10),
  /** Requests one client IP may make to the API documents (/docs/json, /docs/yaml) in any sliding minute. */
  DOCS_RATE_LIMIT_PER_MINUTE: optional(z.coerce.number().int().min(1).max(1_000_000)).default(30),
  /**
   * Enrolment-code attempts from one client address at one course in any sliding 15 minutes,
   * whatever the accounts (a person: 5). A room enrolling from one NAT address shares it.
   */
  ENROLMENT_CODE_ATTEMPTS_PER_ADDRESS: optional(z.coerce.number().int().min(1).max(100_000)).default(50),
  BODY_LIMIT_BYTES: optional(
    z.coerce
      .number()
      .int()
      .min(1024)
      .max(10 * 1024 * 1024),
  ).default(64 * 1024),
  ...authoringBodyLimitEnv,
  /** The largest picture the course studio accepts (bytes); larger uploads are refused before they are read whole (413). */
  STUDIO_UPLOAD_LIMIT_BYTES: optional(
    z.coerce
      .number()
      .int()
      .min(64 * 1024)
      .max(50 * 1024 * 1024),
  ).default(5 * 1024 * 1024),
  /** The hosts whose video URLs a chapter may embed (comma-separated; each with its subdomains). */
  STUDIO_VIDEO_HOSTS: optional(z.string())
    .default('youtube.com,youtu.be,vimeo.com')
    .transform((v) =>
      v
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter((h) => h.length > 0),
    ),
  /**
   * How long one answer of the API-key catalog list (the same for every key) is shared by all
   * keys asking the same page: a course change shows there within this time. 0: not shared.
   */
  CATALOG_CACHE_MS: optional(z.coerce.number().int().min(0).max(60_000)).default(2_000),
  /**
   * On SIGTERM/SIGINT: how long the server keeps serving (with /readyz at 503 and `Connection:
   * close` on every response) before it closes its listener, so a load balancer can stop sending
   * it requests. 0 on the one-command start, where nothing balances.
   */
  SHUTDOWN_DRAIN_MS: optional(z.coerce.number().int().min(0).max(120_000)).default(5_000),
  /** How long a client may take to send a request's headers, its whole body, and how long an idle socket is kept (@lms/server-kit). */
  ...connectionLimitsEnv,
  /**
   * The time zone in which the pages show dates and times, with its name (WIB, WITA, UTC). Most
   * members are on Western Indonesian Time; the JSON API always speaks UTC (ISO 8601).
   */
  PAGES_TIME_ZONE: optional(timeZone).default('Asia/Jakarta'),
  /**
   * Reminders (docs/operations.md, "Reminders"): days without activity in a course after which
   * its learner is nudged, once per course. Their days and years are those of PAGES_TIME_ZONE.
   */
  REMINDER_INACTIVE_DAYS: optional(z.coerce.number().int().min(1).max(365)).default(14),
  /** From which day of the year (MM-DD) members below their partner's yearly credit target are told how far they are. */
  CREDIT_REMINDER_FROM: optional(monthDay).default('11-01'),
  /**
   * The platform's currency (ISO 4217): the progress metrics' revenue30Days sums the purchases in it
   * (amounts in different currencies are never added together) and the dashboard shows it.
   */
  PLATFORM_CURRENCY: optional(z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as IDR')).default('IDR'),
  /**
   * The account learners transfer to for a purchase (the bank-transfer payment provider's
   * instructions, domain/learning/payment-provider.ts). Unset: the instructions give the amount
   * and the transfer reference, and say the institution gives the account.
   */
  BANK_TRANSFER_BANK: optional(z.string().max(200)),
  BANK_TRANSFER_ACCOUNT_NUMBER: optional(z.string().max(100)),
  BANK_TRANSFER_ACCOUNT_NAME: optional(z.string().max(200)),
  /** How long a purchase waits for its payment before it expires (hours). */
  PURCHASE_PENDING_HOURS: optional(
    z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 90),
  ).default(72),
  /** How many purchases one buyer may have waiting for payment at once. */
  PURCHASE_PENDING_MAX: optional(z.coerce.number().int().min(1).max(1_000)).default(5),
  /**
   * Partner events (docs/operations.md, "Partner events"): the waits before each retry, in ms,
   * comma-separated (default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: about 27.6 h), each ±20 %.
   */
  WEBHOOK_RETRY_SCHEDULE_MS: optional(
    z
      .string()
      .regex(/^\d+(,\d+)*$/, 'comma-separated whole numbers of ms, e.g. 5000,300000')
      .transform((v) => v.split(',').map(Number)),
  ),
  /** The deadline of one delivery attempt (connect, send, read the answer). */
  WEBHOOK_TIMEOUT_MS: optional(z.coerce.number().int().min(100).max(120_000)).default(10_000),
  /** An endpoint whose every attempt failed for this long is disabled (hours; default 5 days). */
  WEBHOOK_DISABLE_AFTER_HOURS: optional(
    z.coerce
      .number()
      .min(0)
      .max(24 * 90),
  ).default(120),
  /**
   * How long the delivery log (attempts) and finished events are kept (days), and how long a
   * delivery waits for a disabled endpoint before it is dropped (counted in the log and in
   * lms_webhook_dropped_total).
   */
  WEBHOOK_LOG_RETENTION_DAYS: optional(z.coerce.number().min(0).max(3650)).default(30),
  /** Plain-http endpoint and member-check URLs allowed (the demo on a laptop only). */
  WEBHOOK_ALLOW_HTTP: optional(boolFlag).default(false),
  /** Loopback, private and link-local addresses allowed for partner URLs (the demo only). */
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: optional(boolFlag).default(false),
  /**
   * Open Badges 3.0 credentials (README, "Verifiable credentials"): the issuer's private key, a
   * PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) of an RSA key of at least 2048 bits (RS256), given
   * inline or as the path of a file holding it (not both). Its public half is published at
   * /.well-known/jwks.json with kid = its RFC 7638 thumbprint; a new key (rotation) gets a new kid
   * and the old ones stay published. Required when NODE_ENV=production; elsewhere, unset means a
   * development key generated once and kept in the database (with a warning in the log).
   */
  CREDENTIAL_ISSUER_KEY: optional(z.string()),
  CREDENTIAL_ISSUER_KEY_FILE: optional(z.string()),
  /** The issuer's name in every credential and at /credentials/issuer. */
  CREDENTIAL_ISSUER_NAME: optional(z.string().max(200)).default('LMS'),
  /**
   * `production` in a deployment (the Docker image sets it): then nothing secret is made up at
   * start (the credential issuer key must be configured). Any other value, or none, is a developer's
   * machine, the demo or the tests.
   */
  NODE_ENV: optional(z.string().max(40)),
  /**
   * How often an idle delivery worker asks the job queue for a due delivery (ms, at least 500);
   * 0: this instance runs no partner-event delivery (others do; JOBS_WORKERS=off stops every job).
   */
  WEBHOOK_POLL_MS: optional(z.coerce.number().int().min(0).max(600_000)).default(1_000),
  /** Deliveries one instance sends at once (they wait on the network, not the CPU). */
  WEBHOOK_CONCURRENCY: optional(z.coerce.number().int().min(1).max(256)).default(16),
  /**
   * Deliveries one instance sends at once to one endpoint: an endpoint that hangs holds this many
   * of the WEBHOOK_CONCURRENCY slots until its sends time out, never the others' (at most
   * WEBHOOK_CONCURRENCY).
   */
  WEBHOOK_ENDPOINT_CONCURRENCY: optional(z.coerce.number().int().min(1).max(256)).default(4),
  ...notificationEnv,
});

/** Every environment variable the LMS reads (tests check docker-compose.yml against it). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(Env.shape);

/**
 * The ones a deployment must set: their defaults (embedded database, localhost URL, no gateway)
 * only suit a developer's machine. docker-compose.yml passes each of them.
 */
export const DEPLOYMENT_VARIABLES: readonly string[] = ['DATABASE_URL', 'PUBLIC_URL', 'GATEWAY_SECRET'];

/**
 * The ones that are secrets: deploy/kubernetes takes each from a Secret and docker-compose.yml
 * from the environment, never a value written in the file (e2e/test/kubernetes.test.ts, compose.test.ts).
 */
export const SECRET_VARIABLES: readonly string[] = [
  'DATABASE_URL',
  'GATEWAY_SECRET',
  'CREDENTIAL_ISSUER_KEY',
  'DEMO_PARTNER_WEBHOOK_SECRET',
  ...NOTIFICATION_SECRET_VARIABLES,
];

export type LmsConfig = Omit<z.output<typeof Env>, 'SEED_DEMO_ON_EMPTY'> & {
  SEED_DEMO_ON_EMPTY: boolean;
  trustProxy: string[];
  /** NODE_ENV=production: the credential issuer key must be configured. */
  production: boolean;
};

export { ConfigError };

/** Parses the environment once. A bad value throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): LmsConfig {
  const data = parseEnv(Env, env);
  deriveSetting(() => checkConnectionLimits(data));
  const trustProxy = deriveSetting(() => parseTrustProxy(data.TRUST_PROXY));
  const config = {
    ...data,
    SEED_DEMO_ON_EMPTY: data.SEED_DEMO_ON_EMPTY ?? !data.DATABASE_URL,
    trustProxy,
    production: data.NODE_ENV === 'production',
  };
  deriveSetting(() => credentialIssuerKeyPem(config));
  deriveSetting(() => checkWhatsAppPair(config));
  deriveSetting(() => dkimSettings(config));
  return config;
}

/** The message when production has no credential issuer key (the LMS refuses to start). */
export const MISSING_ISSUER_KEY =
  'NODE_ENV=production needs the credential issuer key: set CREDENTIAL_ISSUER_KEY (a PKCS#8 PEM of an RSA key of at least ' +
  '2048 bits) or CREDENTIAL_ISSUER_KEY_FILE (the path of a file holding it), e.g. ' +
  '`openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:3072 -out issuer.pem`';

/**
 * The configured credential issuer key (PEM), checked: PKCS#8, RSA, at least 2048 bits. Null when
 * none is configured outside production (a development key is then used). Throws a plain Error
 * with a clear message otherwise (loadConfig turns it into a ConfigError at start).
 */
export function credentialIssuerKeyPem(
  config: Pick<LmsConfig, 'CREDENTIAL_ISSUER_KEY' | 'CREDENTIAL_ISSUER_KEY_FILE' | 'production'>,
): string | null {
  const inline = config.CREDENTIAL_ISSUER_KEY;
  const file = config.CREDENTIAL_ISSUER_KEY_FILE;
  if (inline && file) throw new Error('CREDENTIAL_ISSUER_KEY and CREDENTIAL_ISSUER_KEY_FILE: set one, not both');
  if (!inline && !file) {
    if (config.production) throw new Error(MISSING_ISSUER_KEY);
    return null;
  }
  let pem: string;
  if (file) {
    try {
      pem = readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`CREDENTIAL_ISSUER_KEY_FILE: cannot read ${file}: ${(err as Error).message}`);
    }
  } else {
    // A PEM in an environment variable often arrives with its newlines written as \n.
    pem = (inline as string).replace(/\\n/g, '\n');
  }
  const name = file ? 'CREDENTIAL_ISSUER_KEY_FILE' : 'CREDENTIAL_ISSUER_KEY';
  if (!/-----BEGIN PRIVATE KEY-----/.test(pem)) {
    throw new Error(`${name}: not a PKCS#8 PEM private key (-----BEGIN PRIVATE KEY-----); convert with \`openssl pkcs8 -topk8 -nocrypt\``);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch (err) {
    throw new Error(`${name}: not a readable private key: ${(err as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new Error(`${name}: an RSA key is needed (RS256, the Open Badges 3.0 minimum), not ${key.asymmetricKeyType ?? 'this type'}`);
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 2048) throw new Error(`${name}: the RSA key has ${bits} bits; at least 2048 are needed`);
  return pem;
}

/** Where the database is and how long a call to it may take; the server and the admin CLI open it with these. */
export function databaseSettings(config: LmsConfig): DbConfig {
  return {
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    poolMax: config.DB_POOL_MAX,
    connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
  };
}

/**
 * The directory the person typed the command in: pnpm runs package scripts in the package's
 * directory and passes the original one as INIT_CWD. The admin CLI resolves file arguments
 * against it.
 */
export function invocationDir(env: Record<string, string | undefined> = process.env): string {
  return env.INIT_CWD || process.cwd();
}
