import { z } from 'zod';
import { parseTrustProxy } from '@lms/partner-auth';
import { authoringBodyLimitEnv, checkConnectionLimits, ConfigError, connectionLimitsEnv, deriveSetting, parseEnv } from '@lms/server-kit';

const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

const Env = z.object({
  PORT: optional(z.coerce.number().int().min(0).max(65535)).default(3001),
  HOST: optional(z.string()).default('0.0.0.0'),
  PUBLIC_URL: optional(z.url()).default('http://localhost:3001'),
  /**
   * The Prometheus endpoint (`GET /metrics`) listens here, apart from the public port: on the
   * loopback by default (see the LMS's). 0: no metrics listener.
   */
  METRICS_PORT: optional(z.coerce.number().int().min(0).max(65535)).default(9465),
  METRICS_HOST: optional(z.string()).default('127.0.0.1'),
  LOG_LEVEL: optional(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])).default('info'),
  /** JSON file of partners: {"partners":[{"iss","allowedIps":[CIDR...],"lmsUrl"}]}. Reloaded on change. */
  PARTNERS_FILE: optional(z.string()).default('partners.json'),
  /** CIDRs of our own reverse proxies whose X-Forwarded-For is believed. Comma-separated; empty: none. */
  TRUST_PROXY: optional(z.string()).default(''),
  /**
   * Shared with the LMS: sent with forwarded partner calls, and the key of the proof that an SSO
   * sign-in came through here. Unset: SSO and course creation are refused (503).
   */
  GATEWAY_SECRET: optional(z.string().min(16)),
  /**
   * Where forwarded partner calls (course creation) go: the LMS as the gateway reaches it, e.g. an
   * internal load balancer or a Kubernetes Service (`http://lms:3000`). Unset: the partner's
   * `lmsUrl` from PARTNERS_FILE, which is also where SSO sends browsers, so it must be the LMS's
   * public address; the two differ as soon as the LMS runs behind a balancer on a private network.
   */
  LMS_UPSTREAM_URL: optional(
    z
      .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
      .refine((text) => !/[?#]/.test(text), 'must not have a query or fragment')
      .transform((text) => text.replace(/\/+$/, '')),
  ),
  /** How long a forwarded call may wait for the LMS before the gateway answers 504. */
  UPSTREAM_TIMEOUT_MS: optional(z.coerce.number().int().min(100).max(120_000)).default(10_000),
  BODY_LIMIT_BYTES: optional(
    z.coerce
      .number()
      .int()
      .min(1024)
      .max(10 * 1024 * 1024),
  ).default(64 * 1024),
  ...authoringBodyLimitEnv,
  /**
   * On SIGTERM/SIGINT: how long the gateway keeps serving (with /readyz at 503 and `Connection:
   * close` on every response) before it closes its listener. 0 on the one-command start.
   */
  SHUTDOWN_DRAIN_MS: optional(z.coerce.number().int().min(0).max(120_000)).default(5_000),
  /** How long a client may take to send a request's headers, its whole body, and how long an idle socket is kept (@lms/server-kit). */
  ...connectionLimitsEnv,
});

/** Every environment variable the gateway reads (tests check docker-compose.yml against it). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(Env.shape);

/** The ones a deployment must set: the defaults only suit a developer's machine. */
export const DEPLOYMENT_VARIABLES: readonly string[] = ['PUBLIC_URL', 'PARTNERS_FILE', 'GATEWAY_SECRET'];

export type GatewayConfig = z.output<typeof Env> & { trustProxy: string[] };

export { ConfigError };

/** Parses the environment once. A bad value throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  const data = parseEnv(Env, env);
  deriveSetting(() => checkConnectionLimits(data));
  return { ...data, trustProxy: deriveSetting(() => parseTrustProxy(data.TRUST_PROXY)) };
}
