import type { FastifyError } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { bodyTooLargeMessage } from '@lms/server-kit';

/**
 * A gateway error: `status` and `message`. The SSO routes answer `{error}` (the spec's gateway
 * table); the forwarded API answers `{success:false, error}` like the LMS. Routes choose the shape
 * with `errorShape` in their config.
 */
export class GatewayError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

/**
 * The error body of each kind of route, in one place: a new kind of route gets its entry here and
 * the compiler holds every route's `errorShape` to the kinds listed.
 */
const ERROR_BODIES = {
  /** The SSO routes: the spec's gateway table says `{error}`. */
  sso: (message: string) => ({ error: message }),
  /** The forwarded API: the LMS's shape. */
  api: (message: string) => ({ success: false as const, error: message }),
} satisfies Record<string, (message: string) => object>;

/** A kind of route, by the error body it answers. */
export type ErrorShape = keyof typeof ERROR_BODIES;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which error body the route answers (ERROR_BODIES); `api` when unset. */
    errorShape?: ErrorShape;
  }
}

export default fp(
  async (app) => {
    app.setErrorHandler((err: FastifyError, request, reply) => {
      let status = err instanceof GatewayError ? err.statusCode : (err.statusCode ?? 500);
      let message = err.message;
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') message = bodyTooLargeMessage(request.routeOptions.bodyLimit);
      if (hasZodFastifySchemaValidationErrors(err)) {
        status = 400;
        const first = err.validation[0];
        message = `Invalid ${err.validationContext ?? 'request'}: ${first?.message ?? 'bad value'}`;
      }
      if (status >= 500 && !(err instanceof GatewayError)) {
        request.log.error({ err }, 'unhandled error');
        message = 'Internal server error';
      }
      const shape: ErrorShape = request.routeOptions.config?.errorShape ?? 'api';
      return reply.code(status).send(ERROR_BODIES[shape](message));
    });
    app.setNotFoundHandler((request, reply) => {
      reply.code(404).send(ERROR_BODIES.api(`Route ${request.method} ${request.url.split('?')[0]} not found`));
    });
  },
  { name: 'error-handler' },
);
