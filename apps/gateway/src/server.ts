import { stopOnSignals } from '@lms/server-kit';
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
    console.error(
      `Cannot serve metrics on ${config.METRICS_HOST}:${config.METRICS_PORT} (${code}): set METRICS_PORT to a free port, or 0 for no metrics listener.`,
    );
    await app.close();
    process.exit(1);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
