import { jsonTextShapeProblem } from '@lms/contracts';
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

/** Above this many characters, the shape check, the parse and what follows it (validation) each take a turn of the event loop of their own. */
const LARGE_BODY_CHARS = 256 * 1024;

export interface JsonBodyOptions {
  /** The app's 400 for a body nested too deep or with too many keys in one object, from the message naming its top-level field. */
  tooDeep: (message: string) => Error;
  /**
   * Keep the text as sent in `request.rawJsonBody`. The gateway forwards that text rather than
   * JSON.stringify(request.body): the parsed body is only looked at, and re-serializing a deeply
   * nested value overflows the stack.
   */
  keepRawText?: boolean;
}

/**
 * JSON bodies: a nesting limit and a limit of keys per object, read from the text (one pass, stopping at
 * the first problem), then Fastify's own parser (prototype-poisoning checks, 400 for bad or empty
 * JSON). JSON.parse copes with 10,000 levels; JSON.stringify and every recursive walk after it (the
 * idempotency hash, a logged body) overflow the stack, so a body nested deeper than MAX_JSON_DEPTH
 * is a 400 naming its top-level field before anything else sees it, and it is not even parsed
 * (4 MB nested two million deep took JSON.parse a second); so is an object with more than
 * MAX_JSON_KEYS keys (JSON.parse and every later walk, validation first, would read them all).
 */
export const jsonBodyPlugin = fp<JsonBodyOptions>(
  async (app, options) => {
    const keepRawText = options.keepRawText ?? false;
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = body as string;
      // The shape first, from the text: a body too deep or with too many keys is never parsed.
      const problem = jsonTextShapeProblem(text);
      if (problem !== null) return done(options.tooDeep(problem), undefined);
      // A large body: others' requests get a turn between reading its shape, parsing it and
      // validating it (each tens of milliseconds for a few MB), so they never add up in one hold
      // of the event loop.
      const large = text.length > LARGE_BODY_CHARS;
      const parse = () =>
        parseJson(request, text, (err: Error | null, value?: unknown) => {
          if (err) return done(err, undefined);
          if (keepRawText) request.rawJsonBody = text;
          if (large) setImmediate(() => done(null, value));
          else done(null, value);
        });
      if (large) setImmediate(parse);
      else parse();
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
