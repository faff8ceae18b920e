import { type LmsConfig, loadConfig } from './config.js';
import { deploymentReceipts, recordOnlyEnqueue } from './notifications/notify.js';
import type { Receipts } from './notifications/receipts.js';
import { outboxOnly } from './domain/partner-events/queue.js';

// What tests (this package's, e2e) and the bench build the LMS with: exported as @lms/lms/testing,
// apart from config.ts, so that nothing a deployment loads holds a known secret.

/** The GATEWAY_SECRET of testConfig(): tests sign the gateway's SSO proof and credential with it. */
export const TEST_GATEWAY_SECRET = 'test-gateway-secret-0123456789';

/** A configuration for tests and tools: the defaults, a GATEWAY_SECRET, with overrides. */
export function testConfig(overrides: Partial<LmsConfig> = {}): LmsConfig {
  // Tests change data between requests and look at the result at once: no shared catalog answers
  // unless a test asks for them (test/routes/catalog/shared-list.test.ts). A test walks many
  // answers as one person or from one address within a minute: the session, authoring, documents
  // and address budgets count every request but refuse none, unless a test asks
  // (test/plugins/session-rate-limit.test.ts, test/plugins/person-limits.test.ts).
  const env = {
    LOG_LEVEL: 'silent',
    MIGRATE_ON_START: 'false',
    CATALOG_CACHE_MS: '0',
    GATEWAY_SECRET: TEST_GATEWAY_SECRET,
    SESSION_RATE_LIMIT_PER_MINUTE: '1000000',
    DOCS_RATE_LIMIT_PER_MINUTE: '1000000',
    AUTHORING_RATE_LIMIT_PER_MINUTE: '1000000',
    DOCUMENT_RATE_LIMIT_PER_MINUTE: '1000000',
    // No partner-event worker polling in the background; tests that deliver turn it on or call deliverDueEvents().
    WEBHOOK_POLL_MS: '0',
    // The job queue's workers poll often: a test waits for its job half a second at most.
    JOBS_POLL_SECONDS: '0.5',
  };
  return { ...loadConfig(env), ...overrides };
}

/**
 * Receipts for domain calls made outside an app (tests, the bench): recorded in the database,
 * put on no queue (notifications/notify.ts recordOnlyEnqueue; partner-event deliveries: outboxOnly).
 */
export function recordedReceipts(publicUrl = 'http://localhost:3000'): Receipts {
  return deploymentReceipts(publicUrl, recordOnlyEnqueue, outboxOnly);
}
