import fp from 'fastify-plugin';
import { MarkdownRenderer, type MarkdownRendererOptions } from '../lib/markdown/renderer.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Renders chapters' Markdown once per content, off the event loop (lib/markdown/renderer.ts). */
    markdown: MarkdownRenderer;
  }
}

export interface MarkdownOptions extends MarkdownRendererOptions {
  /** Start the worker when the app is ready (the server does; tests start it with the first long text). */
  startWorker?: boolean;
}

/**
 * The instance's Markdown renderer: its worker thread and its cache of rendered chapters, shared
 * by every page that shows Markdown (the learner's chapter, the studio's preview). Its worker stops
 * with the app. docs/architecture.md, "Rendering Markdown".
 */
export default fp<MarkdownOptions>(
  async (app, { startWorker = false, ...options }) => {
    const renderer = new MarkdownRenderer({
      onWorkerError: (err) => app.log.error({ err }, 'the Markdown worker broke: the text it held is shown as plain text'),
      ...options,
    });
    app.decorate('markdown', renderer);
    if (startWorker) app.addHook('onReady', async () => renderer.start());
    app.addHook('onClose', async () => renderer.close());
  },
  { name: 'markdown' },
);
