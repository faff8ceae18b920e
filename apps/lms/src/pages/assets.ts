import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

/** Where the browser fetches the pages' files (the routes below, in the /dashboard scope). */
const ASSETS_URL = '/dashboard/assets';
export const STYLESHEET_PATH = `${ASSETS_URL}/dashboard.css`;
export const DASHBOARD_SCRIPT_PATH = `${ASSETS_URL}/dashboard.js`;
/** The learner's chapter page: its heartbeats (client/chapter-time.ts). */
export const CHAPTER_TIME_SCRIPT_PATH = `${ASSETS_URL}/chapter-time.js`;
/** The course studio's pages: the chapter editor's toolbar, preview and drafts, drag-and-drop order (client/studio-editor.ts). */
export const STUDIO_SCRIPT_PATH = `${ASSETS_URL}/studio-editor.js`;
export const STUDIO_STYLESHEET_PATH = `${ASSETS_URL}/studio-editor.css`;

/**
 * The build's output for the browser (`pnpm run build`: tsconfig.client.json compiles
 * src/pages/client/*.ts and copies its CSS). This module is src/pages/assets.ts when the tests
 * run it and dist/pages/assets.js in the image (which has no src): two levels under the package
 * either way, so both read the same built files.
 */
export const CLIENT_DIR = new URL('../../dist/pages/client/', import.meta.url);

const FILES = [
  { name: 'dashboard.css', type: 'text/css; charset=utf-8' },
  { name: 'dashboard.js', type: 'text/javascript; charset=utf-8' },
  { name: 'chapter-time.js', type: 'text/javascript; charset=utf-8' },
  { name: 'studio-editor.js', type: 'text/javascript; charset=utf-8' },
  { name: 'studio-editor.css', type: 'text/css; charset=utf-8' },
] as const;

/**
 * Public (nothing personal in them) and short-lived in caches: the URLs stay the same across
 * releases, so a browser keeps a copy at most this long and then revalidates it by its ETag (a
 * hash of the content), which costs a 304 while the file has not changed.
 */
export const ASSET_CACHE_CONTROL = 'public, max-age=300';

export interface PageAsset {
  name: string;
  type: string;
  body: string;
  etag: string;
}

/** Reads the built files once, at start; a build that lacks them stops the start with the fix. */
export async function loadPageAssets(dir: URL = CLIENT_DIR): Promise<PageAsset[]> {
  return Promise.all(
    FILES.map(async ({ name, type }) => {
      const file = new URL(name, dir);
      let body: string;
      try {
        body = await readFile(file, 'utf8');
      } catch (err) {
        throw new Error(`The pages' ${name} is missing from ${fileURLToPath(dir)}: run \`pnpm run build\` (${(err as Error).message})`);
      }
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
      return { name, type, body, etag };
    }),
  );
}

/** Whether an If-None-Match header names this ETag (a list, weak validators, or `*`). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

/** GET /dashboard/assets/dashboard.css, dashboard.js, chapter-time.js and studio-editor.js/.css: the pages' stylesheets and scripts. */
const assetRoutes: FastifyPluginAsyncZod = async (app) => {
  const assets = await loadPageAssets();
  for (const asset of assets) {
    app.get(
      `/assets/${asset.name}`,
      {
        // The sign-in and landing pages use them too: nothing in them is anyone's.
        config: { public: true },
        schema: {
          hide: true,
          tags: ['pages'],
          // 304 (no body) when If-None-Match names the current ETag.
          response: { 200: z.string() },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', ASSET_CACHE_CONTROL).header('etag', asset.etag).header('x-content-type-options', 'nosniff');
        // No body at all (the typed reply knows only the 200 of the schema).
        if (matches(request.headers['if-none-match'], asset.etag)) return (reply as FastifyReply).code(304).send();
        return reply.type(asset.type).send(asset.body);
      },
    );
  }
};

export default assetRoutes;
