// Runs the WhatsApp Cloud API fake: `node src/server.js` (or `pnpm --filter @lms/example-whatsapp-fake start`).
import { createWhatsAppFake } from './whatsapp-fake.js';

const port = Number(process.env.PORT ?? 3003);
const host = process.env.HOST ?? '127.0.0.1';
const accessToken = process.env.WHATSAPP_ACCESS_TOKEN ?? 'fake-whatsapp-access-token-0123456789';
const phoneNumberId = process.env.WHATSAPP_PHONE_NUMBER_ID ?? '106540352242922';
const onWhatsApp = (process.env.ON_WHATSAPP ?? '6281234567890').split(',').filter(Boolean);
const webhookUrl = process.env.WEBHOOK_URL || undefined;
const appSecret = process.env.WHATSAPP_APP_SECRET || undefined;

const fake = createWhatsAppFake({
  accessToken,
  phoneNumberId,
  onWhatsApp,
  webhookUrl,
  appSecret,
  autoDeliver: Boolean(webhookUrl && appSecret),
});
fake.server.listen(port, host, () => {
  const { port: bound } = fake.server.address();
  console.info(`WhatsApp Cloud API fake on http://${host}:${bound}`);
  console.info(`  the LMS: WHATSAPP_API_URL=http://${host}:${bound}/v21.0 WHATSAPP_PHONE_NUMBER_ID=${phoneNumberId}`);
  console.info(`  sent messages: http://${host}:${bound}/_fake/messages`);
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => fake.close().then(() => process.exit(0)));
}
