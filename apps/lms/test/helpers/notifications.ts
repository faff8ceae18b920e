import { recordedReceipts as receipts } from '../../src/testing.js';

/** Receipts for domain calls made outside an app: recorded in the database, put on no queue. */
export const recordedReceipts = receipts();
