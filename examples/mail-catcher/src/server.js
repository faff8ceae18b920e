// Runs the mail catcher: `node src/server.js` (or `pnpm --filter @lms/example-mail-catcher start`).
// SMTP_PORT (1025) and HTTP_PORT (1080), 0 for free ones; HOST (127.0.0.1).
import { createMailCatcher } from './mail-catcher.js';

const port = (name, fallback) => {
  const value = Number(process.env[name] || fallback);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    console.error(`${name} must be a port number (0 to 65535), not ${JSON.stringify(process.env[name])}`);
    process.exit(1);
  }
  return value;
};

const catcher = await createMailCatcher({
  host: process.env.HOST || '127.0.0.1',
  smtpPort: port('SMTP_PORT', 1025),
  httpPort: port('HTTP_PORT', 1080),
});
console.info(`mail catcher: SMTP on ${catcher.smtpUrl}`);
console.info(`  page:  ${catcher.pageUrl}  (what was sent, newest first; JSON: ${catcher.pageUrl}api/messages)`);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => catcher.close().then(() => process.exit(0)));
}
