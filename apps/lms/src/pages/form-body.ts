import type { FastifyInstance } from 'fastify';

/**
 * How many fields one form post may carry. The largest form, a quiz of 100 questions, has about
 * 800; a 4 MB body of `a=&a=&…` would be a million.
 */
export const MAX_FORM_FIELDS = 5_000;

/**
 * Lets a page scope take plain HTML form posts: an urlencoded body read with URLSearchParams into
 * a flat object (the first value of a repeated name wins), at most `bodyLimit` bytes and
 * MAX_FORM_FIELDS fields (more is a 413, "too much to send", counted before anything is decoded). One pass: looking
 * each name up again (`params.get`) made 250,000 fields cost minutes.
 */
export function acceptFormBodies(app: FastifyInstance, bodyLimit: number): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit }, (_request, body, done) => {
    const text = body as string;
    let fields = 1;
    for (let at = text.indexOf('&'); at !== -1; at = text.indexOf('&', at + 1)) {
      if (++fields > MAX_FORM_FIELDS) return done(tooManyFields(), undefined);
    }
    const values = new Map<string, string>();
    for (const [name, value] of new URLSearchParams(text)) if (!values.has(name)) values.set(name, value);
    done(null, Object.fromEntries(values));
  });
}

/** Fastify's kind of client error (a status on the error): the pages answer it with their 413 page. */
function tooManyFields(): Error {
  return Object.assign(new Error(`A form may have at most ${MAX_FORM_FIELDS} fields`), {
    statusCode: 413,
    code: 'LMS_TOO_MANY_FORM_FIELDS',
  });
}
