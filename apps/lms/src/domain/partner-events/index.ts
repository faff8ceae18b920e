// What other packages (the bench) use of partner events.
export { enqueuePartnerEvent, PARTNER_EVENT_TYPES, type PartnerEventType } from './enqueue.js';
export { attemptDelivery, claimDue, DEFAULT_RETRY_SCHEDULE_MS, type DeliverySettings } from './delivery.js';
export { newWebhookSecret, signatureHeader } from './signing.js';
