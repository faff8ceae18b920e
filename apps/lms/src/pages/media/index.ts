import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { postgresPictureStore } from '../../domain/media/pictures.js';

/**
 * GET /media/pictures/<sha256>.<kind>: a picture uploaded through the studio, public (a course's
 * cover shows in the catalog; chapter pictures are as public as any URL in a page). The name is
 * the content's hash, so the answer never changes: cached for a year, `immutable`. Served with
 * `nosniff` and a CSP that runs nothing, whatever a browser would make of the bytes.
 */
const mediaRoutes: FastifyPluginAsyncZod = async (app) => {
  const store = postgresPictureStore(app.db);
  app.get(
    '/media/pictures/:name',
    {
      config: { public: true },
      schema: {
        hide: true,
        params: z.object({ name: z.string().regex(/^[0-9a-f]{64}\.(png|jpeg|webp|gif)$/) }),
      },
    },
    async (request, reply) => {
      const name = (request.params as { name: string }).name;
      const [sha256, kind] = name.split('.');
      const picture = await store.get(sha256);
      if (!picture || picture.contentType !== `image/${kind}`) {
        return reply.code(404).header('x-content-type-options', 'nosniff').send({ success: false, error: 'Picture not found' });
      }
      return reply
        .header('content-type', picture.contentType)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cross-origin-resource-policy', 'same-site')
        .send(picture.bytes);
    },
  );
};

export default mediaRoutes;
