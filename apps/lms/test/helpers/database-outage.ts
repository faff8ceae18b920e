import { Writable } from 'node:stream';
import { createDb, type DbConfig, type DbHandle } from '@lms/db';
import { createTestDb, type TestDb } from '@lms/db/testing';
import type { Test } from 'tap';
import { buildApp, type AppDeps, type LmsApp } from '../../src/app.js';
import type { LmsConfig } from '../../src/config.js';
import { testConfig } from '../../src/testing.js';
import { postgresUrl } from './database.js';
import { type TcpProxy, tcpProxy } from './tcp-proxy.js';

export interface LogLine {
  level: number;
  msg?: string;
  [field: string]: unknown;
}

export interface OutageApp {
  app: LmsApp;
  /** Where the app listens (a real server on port 0). */
  url: string;
  /** The throwaway database, reached directly (not through the proxy): for fixtures and checks. */
  direct: TestDb;
  /** The path between the app and PostgreSQL. */
  proxy: TcpProxy;
  /** The app's own handle (through the proxy). */
  handle: DbHandle;
  /** Every line the app logged (level debug and up), parsed; `text` is the raw line. */
  logs: Array<LogLine & { text: string }>;
}

/**
 * A real LMS listening on a loopback port, whose database pool goes through a TCP proxy to a
 * throwaway database on the test PostgreSQL server; its pino output is captured at debug level.
 * Torn down with the test.
 */
export async function outageApp(
  t: Test,
  options: {
    db?: Pick<DbConfig, 'connectTimeoutMs' | 'statementTimeoutMs' | 'poolMax'>;
    config?: Partial<LmsConfig>;
    deps?: Partial<AppDeps>;
  } = {},
): Promise<OutageApp> {
  // PostgreSQL whatever TEST_DATABASE_URL says about the other tests: PGlite has no network to cut.
  const direct = await createTestDb(postgresUrl);
  const target = new URL(direct.url!);
  const proxy = await tcpProxy(t, { host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(direct.url!);
  viaProxy.hostname = proxy.host;
  viaProxy.port = String(proxy.port);
  const handle = createDb({ connectTimeoutMs: 500, statementTimeoutMs: 500, poolMax: 10, ...options.db, databaseUrl: viaProxy.toString() });

  const logs: OutageApp['logs'] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) if (text) logs.push({ ...(JSON.parse(text) as LogLine), text });
      done();
    },
  });
  const app = await buildApp({
    // Many requests per key in a few seconds: the rate limit is not what these tests are about.
    config: testConfig({ RATE_LIMIT_PER_MINUTE: 1_000_000, ...options.config }),
    db: handle,
    logger: { level: 'debug', stream },
    ...options.deps,
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(async () => {
    await app.close();
    await handle.close();
    await direct.destroy();
  });
  return { app, url, direct, proxy, handle, logs };
}

/** pino's levels. */
export const DEBUG = 20;
export const INFO = 30;
export const WARN = 40;

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
