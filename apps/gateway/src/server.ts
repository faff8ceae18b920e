import { buildGateway, type GatewayApp } from './app.js';
import { ConfigError, type GatewayConfig, loadConfig } from './config.js';
import { PartnersFileError } from './domain/partners.js';

async function main() {
  let config: GatewayConfig;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  let app: GatewayApp;
  try {
    app = await buildGateway({ config });
  } catch (err) {
    // A bad partners file is an operator's mistake: say what is wrong, no stack trace.
    if (err instanceof PartnersFileError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }

  stopOnSignals(app, config.SHUTDOWN_DRAIN_MS);

  if (!config.GATEWAY_SECRET) {
    app.log.warn('GATEWAY_SECRET is not set: SSO (/sso/verify) and course creation (POST /api/courses) are refused with 503');
  }
  if (config.METRICS_PORT !== 0) await serveMetrics(app, config);
  await app.listen({ port: config.PORT, host: config.HOST });
  console.log(`\n  Gateway ready at ${config.PUBLIC_URL}\n`);
}

/**
 * The Prometheus endpoint on its own listener (closed with the app). A port already taken stops
 * the start: another process there would answer the scrape with its own numbers.
 */
async function serveMetrics(app: GatewayApp, config: GatewayConfig) {
  try {
    const metrics = await app.gatewayMetrics.listen({ host: config.METRICS_HOST, port: config.METRICS_PORT });
    app.log.info({ url: metrics.url }, 'metrics: Prometheus endpoint listening');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    console.error(`Cannot serve metrics on ${config.METRICS_HOST}:${config.METRICS_PORT} (${code}): set METRICS_PORT to a free port, or 0 for no metrics listener.`);
    await app.close();
    process.exit(1);
  }
}

/** How long in-flight requests may take to finish once the listener is closed. */
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * Graceful shutdown on SIGTERM/SIGINT, as in the LMS: drain for `drainMs` (/readyz 503,
 * `Connection: close`, see lifecyclePlugin in @lms/server-kit), then app.close() (listener and idle sockets
 * closed, in-flight requests finished), then exit 0. A second signal skips the rest of the
 * drain; close taking over CLOSE_TIMEOUT_MS exits 1.
 */
function stopOnSignals(app: GatewayApp, drainMs: number) {
  let phase: 'serving' | 'draining' | 'closing' = 'serving';
  let drainTimer: NodeJS.Timeout | undefined;
  const close = async () => {
    if (phase === 'closing') return;
    phase = 'closing';
    clearTimeout(drainTimer);
    app.log.info('shutdown: closing the listener, waiting for the requests in flight');
    setTimeout(() => {
      app.log.error(`shutdown: requests still in flight after ${CLOSE_TIMEOUT_MS} ms; exiting`);
      process.exit(1);
    }, CLOSE_TIMEOUT_MS).unref();
    try {
      await app.close();
      app.log.info('shutdown: done');
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error while shutting down');
      process.exit(1);
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (phase === 'draining') {
      app.log.info({ signal }, 'shutdown: second signal, closing without waiting for the rest of the drain');
      void close();
      return;
    }
    if (phase !== 'serving') return;
    phase = 'draining';
    app.lifecycle.startDraining();
    app.log.info({ signal, drainMs }, 'shutdown: draining (/readyz is 503, responses carry Connection: close)');
    drainTimer = setTimeout(() => void close(), drainMs);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
