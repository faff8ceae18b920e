import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { renderMarkdownNow } from './render.js';

// The thread ./renderer.ts renders chapters on: one Markdown text in, its HTML out, one at a time.
// It says `ready` once its modules are loaded, so the renderer's time limit counts rendering only.

export interface RenderRequest {
  id: number;
  markdown: string;
}
export type RenderReply = { id: number; html: string; outcome: 'rendered' | 'too_deep' } | { id: number; error: string } | { ready: true };

/**
 * On Linux a thread has its own nice value: this one yields the CPU to the event loop's thread
 * (and to the rest of the process) when both want it. Elsewhere it keeps the process's priority.
 */
function lowerThisThreadsPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, 10);
  } catch {}
}

const port = parentPort;
if (port) {
  lowerThisThreadsPriority();
  port.on('message', ({ id, markdown }: RenderRequest) => {
    let reply: RenderReply;
    try {
      const { html, outcome } = renderMarkdownNow(markdown);
      reply = { id, html, outcome: outcome === 'too_deep' ? 'too_deep' : 'rendered' };
    } catch (err) {
      reply = { id, error: String((err as Error)?.message ?? err).slice(0, 200) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ ready: true } satisfies RenderReply);
}
