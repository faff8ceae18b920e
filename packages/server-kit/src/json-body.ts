import { tooDeepJsonField, tooDeepJsonMessage } from '@lms/contracts';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The JSON body exactly as the client sent it, with `keepRawText` (the gateway): what the
     * gateway forwards (never re-serialized). Unset without it.
     */
    rawJsonBody?: string;
  }
}

export interface JsonBodyOptions {
  /** The app's 400 for a body nested too deep, from the message naming its top-level field. */
  tooDeep: (message: string) => Error;
  /**
   * Keep the text as sent in `request.rawJsonBody`. The gateway forwards that text rather than
   * JSON.stringify(request.body): the parsed body is only looked at, and re-serializing a deeply
   * nested value overflows the stack.
   */
  keepRawText?: boolean;
}

/**
 * JSON bodies: Fastify's own parser (prototype-poisoning checks, 400 for bad or empty JSON), then
 * a nesting limit. JSON.parse copes with 10,000 levels; JSON.stringify and every recursive walk
 * after it (the idempotency hash, a logged body) overflow the stack, so a body nested deeper than
 * MAX_JSON_DEPTH is a 400 naming its top-level field before anything else sees it.
 */
export const jsonBodyPlugin = fp<JsonBodyOptions>(
  async (app, options) => {
    const keepRawText = options.keepRawText ?? false;
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      parseJson(request, body as string, (err: Error | null, value?: unknown) => {
        if (err) return done(err, undefined);
        const field = tooDeepJsonField(value);
        if (field !== null) return done(options.tooDeep(tooDeepJsonMessage(field)), undefined);
        if (keepRawText) request.rawJsonBody = body as string;
        done(null, value);
      });
    });
  },
  { name: 'json-body' },
);

/**
 * The text of a 413, naming the limit the body passed (the route's own bodyLimit, or the app's
 * BODY_LIMIT_BYTES, as `request.routeOptions.bodyLimit` gives it). Both apps' error handlers use it.
 */
export function bodyTooLargeMessage(limitBytes: number | undefined): string {
  return limitBytes === undefined ? 'Request body is too large' : `Request body is too large: this route takes at most ${limitBytes} bytes`;
}
