import { deploymentReceipts, recordOnlyEnqueue } from '../../src/notifications/notify.js';

/** Receipts for domain calls made outside an app: recorded in the database, put on no queue. */
export const recordedReceipts = deploymentReceipts('http://localhost:3000', recordOnlyEnqueue);
