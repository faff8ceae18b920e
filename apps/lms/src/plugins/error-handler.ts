import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorResponse } from '@lms/contracts';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { isDatabaseUnavailable, isTransactionConflict } from '@lms/db';
import { bodyTooLargeMessage } from '@lms/server-kit';
import {
  AppError,
  CONFLICT_RETRY_AFTER_SECONDS,
  DATABASE_RETRY_AFTER_SECONDS,
  DatabaseUnavailableError,
  errorBody,
  HTTP_STATUS,
  TransactionConflictError,
  type UnavailableError,
} from '../errors.js';

/**
 * One error shape for the whole API: `{success:false, error}`. Domain errors get the status of
 * their kind (errors.ts's HTTP_STATUS; code that throws them never names a status);
 * a database that cannot answer (down, stalled, out of time) is a 503 with `Retry-After`, and so
 * is a transaction PostgreSQL rolled back for a concurrent one (a deadlock) after its last try;
 * schema validation becomes a 400 naming the parameter; Fastify's own client errors (bad JSON,
 * body too large, wrong content type) keep their 4xx; anything else is a 500 whose details go to
 * the log only.
 */
export default fp(
  async (app) => {
    app.setErrorHandler((err: FastifyError, request, reply) => {
      const later = retryLaterError(request, err);
      if (later) return sendDomainError(reply, later);
      if (err instanceof AppError) return sendDomainError(reply, err);
      if (hasZodFastifySchemaValidationErrors(err)) {
        const where = err.validationContext ?? 'request';
        if (where === 'body') {
          // A body can be wrong in several places at once: name each of them.
          const details = err.validation.map((v) => ({ path: pathOf(v), message: v.message ?? 'invalid value' }));
          const summary = details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ');
          return reply.code(400).send({ success: false, error: `Invalid request body: ${summary}`, details });
        }
        const first = err.validation[0];
        const field = first?.instancePath.replace(/^\//, '').replace(/\//g, '.') || first?.params?.missingProperty;
        const label = where === 'querystring' ? 'query parameter' : where === 'params' ? 'path parameter' : where;
        const message = field ? `Invalid ${label} '${String(field)}': ${first?.message}` : `Invalid ${label}: ${first?.message}`;
        return reply.code(400).send({ success: false, error: message });
      }
      if (isResponseSerializationError(err)) {
        request.log.error({ err, issues: err.cause.issues }, 'response did not match its schema');
        return reply.code(500).send({ success: false, error: 'Internal server error' });
      }
      const status = err.statusCode ?? 500;
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return reply.code(413).send({ success: false, error: bodyTooLargeMessage(request.routeOptions.bodyLimit) });
      }
      if (status >= 400 && status < 500) {
        return reply.code(status).send({ success: false, error: err.message });
      }
      request.log.error({ err }, 'unhandled error');
      return reply.code(500).send({ success: false, error: 'Internal server error' });
    });

    // Any JSON route may meet a database outage: each one that documents its errors documents
    // this one too (routes that already declare a 503 say it themselves).
    app.addHook('onRoute', (route) => {
      const schema = route.schema;
      const response = schema?.response as Record<string, unknown> | undefined;
      if (!schema || !response || schema.hide || '503' in response) return;
      if (!Object.keys(response).some((status) => /^4\d\d$/.test(status))) return;
      schema.response = { ...response, 503: DatabaseUnavailableResponse };
    });

    app.setNotFoundHandler((request, reply) => {
      reply.code(404).send({ success: false, error: `Route ${request.method} ${request.url.split('?')[0]} not found` });
    });
  },
  { name: 'error-handler' },
);

/**
 * A database error that only says "not now", as the domain error that answers it (a 503 with
 * `Retry-After`), logged; undefined for any other error. The database did not answer (down,
 * stalled, out of time: logged at debug, since the database plugin logs the outage once), or it
 * rolled the request's transaction back for a concurrent one on its last try (inTransaction:
 * logged as a warning). Shared by this handler and the pages' one, so both decide alike.
 */
export function retryLaterError(request: FastifyRequest, err: FastifyError): UnavailableError | undefined {
  // Fastify's own errors carry a status (a client that hung up mid-body is an ECONNRESET too).
  if (err.statusCode !== undefined) return undefined;
  if (isDatabaseUnavailable(err)) {
    request.log.debug({ err }, 'database unavailable');
    return new DatabaseUnavailableError();
  }
  if (isTransactionConflict(err)) {
    request.log.warn({ err }, 'transaction rolled back for a concurrent one (deadlock or serialization failure), answered 503');
    return new TransactionConflictError();
  }
  return undefined;
}

/** A domain error's one answer: the status of its kind (errors.ts), its headers, `{success:false, error}`. */
function sendDomainError(reply: FastifyReply, err: AppError) {
  return reply.code(HTTP_STATUS[err.kind]).headers(err.headers).send(errorBody(err));
}

/** `name`, `modules.0.title`; for unknown keys the keys themselves. */
function pathOf(v: { instancePath: string; params?: Record<string, unknown> }): string {
  const path = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (path) return path;
  const keys = v.params?.keys;
  return Array.isArray(keys) ? keys.join(',') : '';
}

const DatabaseUnavailableResponse = ErrorResponse.meta({
  description:
    `The database is unavailable (down, stalled, or a statement ran out of time; \`Retry-After: ${DATABASE_RETRY_AFTER_SECONDS}\`), ` +
    `or the request met a concurrent one and its transaction was rolled back (\`Retry-After: ${CONFLICT_RETRY_AFTER_SECONDS}\`)`,
});
