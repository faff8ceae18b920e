import { type GatewayConfig, loadConfig } from './config.js';

// What tests (this package's, e2e) and the bench build the gateway with: exported as
// @lms/gateway/testing, apart from config.ts, so that nothing a deployment loads holds a known secret.

/** The secret testConfig() shares with the LMS's testConfig() (@lms/lms/testing), as a deployment would. */
export const TEST_GATEWAY_SECRET = 'test-gateway-secret-0123456789';

/** A configuration for tests: the defaults, a GATEWAY_SECRET, and the overrides. */
export function testConfig(overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return { ...loadConfig({ LOG_LEVEL: 'silent', GATEWAY_SECRET: TEST_GATEWAY_SECRET }), ...overrides };
}
