import type { FastifyInstance } from 'fastify';

/**
 * Lets a page scope take plain HTML form posts: an urlencoded body read with URLSearchParams into
 * a flat object (the first value of a repeated name wins), at most `bodyLimit` bytes.
 */
export function acceptFormBodies(app: FastifyInstance, bodyLimit: number): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit }, (_request, body, done) => {
    const params = new URLSearchParams(body as string);
    done(null, Object.fromEntries([...params.keys()].map((k) => [k, params.get(k)])));
  });
}
