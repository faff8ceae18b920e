import { buildGateway } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { PartnersFileError } from './domain/partners.js';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  let app;
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

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), 10_000).unref();
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  if (!config.GATEWAY_SECRET) {
    app.log.warn('GATEWAY_SECRET is not set: SSO (/sso/verify) and course creation (POST /api/courses) are refused with 503');
  }
  await app.listen({ port: config.PORT, host: config.HOST });
  console.log(`\n  Gateway ready at ${config.PUBLIC_URL}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
