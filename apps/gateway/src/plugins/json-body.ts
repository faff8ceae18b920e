import { tooDeepJsonField, tooDeepJsonMessage } from '@lms/contracts';
import fp from 'fastify-plugin';
import { GatewayError } from './error-handler.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body exactly as the client sent it: what the gateway forwards (never re-serialized). */
    rawJsonBody?: string;
  }
}

/**
 * JSON bodies: Fastify's own parser (prototype-poisoning checks, 400 for bad or empty JSON), then
 * a nesting limit (400 naming the top-level field), and the text kept as sent. The gateway
 * forwards that text rather than JSON.stringify(request.body): the parsed body is only looked at,
 * and re-serializing a deeply nested value overflows the stack.
 */
export default fp(
  async (app) => {
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      parseJson(request, body as string, (err: Error | null, value?: unknown) => {
        if (err) return done(err, undefined);
        const field = tooDeepJsonField(value);
        if (field !== null) return done(new GatewayError(400, tooDeepJsonMessage(field)), undefined);
        request.rawJsonBody = body as string;
        done(null, value);
      });
    });
  },
  { name: 'json-body' },
);
