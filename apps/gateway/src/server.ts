import { orExit, serveMetrics, stopOnSignals } from '@lms/server-kit';
import { buildGateway } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { PartnersFileError } from './domain/partners.js';

async function main() {
  const config = await orExit(() => loadConfig(), ConfigError);
  // A bad partners file is an operator's mistake too: what is wrong, no stack trace.
  const app = await orExit(() => buildGateway({ config }), PartnersFileError);

  stopOnSignals(app, config.SHUTDOWN_DRAIN_MS);

  if (!config.GATEWAY_SECRET) {
    app.log.warn(
      'GATEWAY_SECRET is not set: SSO (/sso/verify) and every forwarded partner call (course creation, authoring, credits, teachers) are refused with 503',
    );
  }
  if (config.METRICS_PORT !== 0) await serveMetrics(app, app.gatewayMetrics, config);
  await app.listen({ port: config.PORT, host: config.HOST });
  console.log(`\n  Gateway ready at ${config.PUBLIC_URL}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
