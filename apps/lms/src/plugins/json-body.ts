import { tooDeepJsonField, tooDeepJsonMessage } from '@lms/contracts';
import fp from 'fastify-plugin';
import { BadRequestError } from '../errors.js';

/**
 * JSON bodies: Fastify's own parser (prototype-poisoning checks, 400 for bad or empty JSON), then
 * a nesting limit. JSON.parse copes with 10,000 levels; JSON.stringify and every recursive walk
 * after it (the idempotency hash, a logged body) overflow the stack, so a body nested deeper than
 * MAX_JSON_DEPTH is a 400 naming its top-level field before anything else sees it.
 */
export default fp(
  async (app) => {
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      parseJson(request, body as string, (err: Error | null, value?: unknown) => {
        if (err) return done(err, undefined);
        const field = tooDeepJsonField(value);
        if (field !== null) return done(new BadRequestError(tooDeepJsonMessage(field)), undefined);
        done(null, value);
      });
    });
  },
  { name: 'json-body' },
);
