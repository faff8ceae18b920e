// What other packages (the bench) use of partner events.
export { enqueuePartnerEvent, PARTNER_EVENT_TYPES, type PartnerEventType } from './enqueue.js';
export { attemptDelivery, DEFAULT_RETRY_SCHEDULE_MS, type DeliverySettings } from './delivery.js';
export { claimDue, deliveryJobs, outboxOnly, type SendDeliveries } from './queue.js';
export { newWebhookSecret, signatureHeader } from './signing.js';
