// How long a client may take: both apps bound the time a request's headers and its whole body may
// take to arrive, and how long an idle keep-alive socket is kept. Without these, a client that
// sends a Content-Length and then one byte every few seconds holds a socket (and the memory of its
// body) for as long as it likes: 150 such sockets were all still open after 131 s before these
// limits (Fastify leaves requestTimeout and connectionTimeout at 0, "none").

import type { ServerOptions } from 'node:http';
import { z } from 'zod';

const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());
const millis = (max: number) => optional(z.coerce.number().int().min(100).max(max));

/** The three settings, as each app's environment schema spreads them in. */
export const connectionLimitsEnv = {
  /** Time from a socket's first byte to the end of the request's headers; past it, 408 and closed. */
  HEADERS_TIMEOUT_MS: millis(600_000).default(10_000),
  /** Time to receive a whole request, headers and body; past it, 408 and closed (a slow body). */
  REQUEST_TIMEOUT_MS: millis(3_600_000).default(30_000),
  /**
   * How long a keep-alive socket may stay idle between requests. Longer than a load balancer's own
   * idle timeout (60 s for most), so the balancer, not us, closes an idle connection first and never
   * sends a request down one we are closing: Fastify's 72 s.
   */
  KEEP_ALIVE_TIMEOUT_MS: millis(3_600_000).default(72_000),
};

export interface ConnectionLimits {
  HEADERS_TIMEOUT_MS: number;
  REQUEST_TIMEOUT_MS: number;
  KEEP_ALIVE_TIMEOUT_MS: number;
}

/** Node refuses a headers timeout longer than the request's: said at start, naming both. */
export function checkConnectionLimits(limits: ConnectionLimits): ConnectionLimits {
  if (limits.HEADERS_TIMEOUT_MS > limits.REQUEST_TIMEOUT_MS) {
    throw new Error(
      `HEADERS_TIMEOUT_MS (${limits.HEADERS_TIMEOUT_MS}) must not exceed REQUEST_TIMEOUT_MS (${limits.REQUEST_TIMEOUT_MS}): the headers are part of the request`,
    );
  }
  return limits;
}

/**
 * The Fastify (and Node http.Server) options that enforce the limits. Node checks the headers and
 * request timeouts of open sockets every `connectionsCheckingInterval` (30 s by default, which
 * would let a 10-s limit run to 40 s): here a quarter of the shorter limit, between 50 ms and 1 s.
 */
export function connectionLimitsOptions(limits: ConnectionLimits): {
  requestTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
} {
  const interval = Math.min(1_000, Math.max(50, Math.floor(Math.min(limits.HEADERS_TIMEOUT_MS, limits.REQUEST_TIMEOUT_MS) / 4)));
  return {
    requestTimeout: limits.REQUEST_TIMEOUT_MS,
    keepAliveTimeout: limits.KEEP_ALIVE_TIMEOUT_MS,
    http: { headersTimeout: limits.HEADERS_TIMEOUT_MS, requestTimeout: limits.REQUEST_TIMEOUT_MS, connectionsCheckingInterval: interval },
  };
}

/**
 * The body limit of the authoring writes (a course document with its chapters' Markdown is more
 * than the other routes take), the same setting in the LMS and in the gateway that forwards them;
 * over it, 413 naming the limit (bodyTooLargeMessage).
 */
export const authoringBodyLimitEnv = {
  AUTHORING_BODY_LIMIT_BYTES: optional(
    z.coerce
      .number()
      .int()
      .min(64 * 1024)
      .max(64 * 1024 * 1024),
  ).default(4 * 1024 * 1024),
};
