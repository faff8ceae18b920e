// Runs the demo partner backend: `node src/server.js` (or `pnpm --filter @lms/example-partner-backend start`).
import { fileURLToPath } from 'node:url';
import { createPartnerBackend } from './partner-backend.js';

const port = Number(process.env.PORT ?? 3002);
const host = process.env.HOST ?? '127.0.0.1';
const issuer = process.env.ISSUER ?? 'demo-partner.local';
const gatewayUrl = process.env.GATEWAY_URL ?? 'http://localhost:3001';
const lmsUrl = process.env.LMS_URL ?? 'http://localhost:3000';
const webhookSecret = process.env.WEBHOOK_SECRET || undefined;
const dataDir = process.env.DATA_DIR ?? fileURLToPath(new URL('../.data/', import.meta.url));

const { server, key } = await createPartnerBackend({ dataDir, issuer, gatewayUrl, lmsUrl, webhookSecret });
server.listen(port, host, () => {
  console.info(`demo partner ${issuer} on http://${host}:${port}`);
  console.info(`  JWKS:  http://${host}:${port}/.well-known/jwks.json (kid ${key.kid})`);
  console.info(`  try:   http://${host}:${port}/  (calls the gateway at ${gatewayUrl})`);
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
