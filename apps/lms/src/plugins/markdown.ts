import fp from 'fastify-plugin';
import { UnavailableError } from '../errors.js';
import type { RenderedMarkdown } from '../lib/markdown/render.js';
import {
  MarkdownRenderer,
  type MarkdownRendererOptions,
  type MarkdownRendererStats,
  MarkdownUnavailableError,
} from '../lib/markdown/renderer.js';

/** The app's renderer: a text's HTML (an UnavailableError, a 503 page, when it cannot take it now), its figures. */
export interface AppMarkdown {
  render(markdown: string): Promise<RenderedMarkdown>;
  stats(): MarkdownRendererStats;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Renders chapters' Markdown once per content, off the event loop (lib/markdown/renderer.ts). */
    markdown: AppMarkdown;
  }
}

export interface MarkdownOptions extends MarkdownRendererOptions {
  /** Start the worker when the app is ready (the server does; tests start it with the first long text). */
  startWorker?: boolean;
}

/**
 * The instance's Markdown renderer: its worker thread and its cache of rendered chapters, shared
 * by every page that shows Markdown (the learner's chapter, the studio's preview). Its worker stops
 * when the app starts closing. docs/architecture.md, "Rendering Markdown".
 */
export default fp<MarkdownOptions>(
  async (app, { startWorker = false, ...options }) => {
    const renderer = new MarkdownRenderer({
      onWorkerError: (err) => app.log.error({ err }, 'the Markdown worker broke: the text it held is shown as plain text'),
      ...options,
    });
    const markdown: AppMarkdown = {
      render: (text) =>
        renderer.render(text).catch((err: unknown) => {
          if (!(err instanceof MarkdownUnavailableError)) throw err;
          throw err.reason === 'busy'
            ? new UnavailableError(err.message, err.retryAfterSeconds)
            : new UnavailableError('The service is shutting down; retry the request');
        }),
      stats: () => renderer.stats(),
    };
    app.decorate('markdown', markdown);
    if (startWorker) app.addHook('onReady', async () => renderer.start());
    // At the start of closing: requests still waiting for a render end at once (plain text) rather
    // than hold the shutdown behind the worker's queue.
    app.addHook('preClose', async () => renderer.close());
  },
  { name: 'markdown' },
);
