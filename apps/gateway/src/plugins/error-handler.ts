import type { FastifyError } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

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

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'sso': `{error}`; otherwise `{success:false, error}`. */
    errorShape?: 'sso' | 'api';
  }
}

export default fp(
  async (app) => {
    app.setErrorHandler((err: FastifyError, request, reply) => {
      let status = err instanceof GatewayError ? err.statusCode : (err.statusCode ?? 500);
      let message = err.message;
      if (hasZodFastifySchemaValidationErrors(err)) {
        status = 400;
        const first = err.validation[0];
        message = `Invalid ${err.validationContext ?? 'request'}: ${first?.message ?? 'bad value'}`;
      }
      if (status >= 500 && !(err instanceof GatewayError)) {
        request.log.error({ err }, 'unhandled error');
        message = 'Internal server error';
      }
      const shape = request.routeOptions.config?.errorShape ?? 'api';
      return reply.code(status).send(shape === 'sso' ? { error: message } : { success: false, error: message });
    });
    app.setNotFoundHandler((request, reply) => {
      reply.code(404).send({ success: false, error: `Route ${request.method} ${request.url.split('?')[0]} not found` });
    });
  },
  { name: 'error-handler' },
);
