import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { type MarkdownOutcome, markdownAsPlainText, type RenderedMarkdown, renderMarkdownNow } from './render.js';
import type { RenderReply, RenderRequest } from './worker.js';

/**
 * Chapters rendered once per content and never on the event loop (docs/architecture.md,
 * "Rendering Markdown"). A text is known by its SHA-256, so a chapter is rendered once per version
 * for every viewer, and a studio preview of unchanged text costs nothing. A short text is rendered
 * on the spot (a round trip would cost more); a longer one goes to one worker thread, one text at a
 * time: the event loop only hashes it and waits. The worker may spend `timeoutMs` of its own CPU
 * time on a text, then it is stopped (a new one starts for the next) and the text is shown as plain
 * text. CPU time, not wall time: the worker runs at a lower priority (./worker.ts), so on a busy
 * machine it waits for the CPU, and a text that would render in 2 s must not be judged too costly
 * because it waited. It never waits longer than `maxWaitMs` in all: then the text is shown as plain
 * text this once and tried again by the next reader (it was the machine, not the text). Each instance
 * keeps its own cache (least recently used first out, bounded in characters): a content renders
 * at most once per instance, which is all the bound needs.
 */

export interface MarkdownRendererOptions {
  /** Longest text rendered on the event loop itself: at most a few milliseconds whatever it holds. */
  inlineChars?: number;
  /** CPU time the worker may spend on one text (its start not counted) before it is stopped. */
  timeoutMs?: number;
  /** Wall time a text may wait for the worker (busy machine) before it is shown as plain text this once. */
  maxWaitMs?: number;
  /** Texts that may wait for the worker; one more is refused (MarkdownUnavailableError: a 503 page). */
  maxQueued?: number;
  /** Characters of rendered HTML kept (about two bytes each). */
  cacheChars?: number;
  /** How long a text that timed out or failed is shown as plain text before it is tried again. */
  retryFailedAfterMs?: number;
  /**
   * The worker's heap: a text cannot take more memory than this. At least MIN_WORKER_HEAP_MB: on
   * Node 26 a worker whose isolate cannot even start (2 MB) aborts the whole process instead of
   * failing the worker.
   */
  workerHeapMb?: number;
  /** Told when the worker breaks (not when it is stopped for taking too long): the plugin logs it. */
  onWorkerError?: (err: Error) => void;
}

/** The smallest worker heap the renderer asks for (see MarkdownRendererOptions.workerHeapMb). */
const MIN_WORKER_HEAP_MB = 8;

export const MARKDOWN_RENDERER_DEFAULTS: Required<MarkdownRendererOptions> = {
  inlineChars: 1_000,
  timeoutMs: 5_000,
  maxWaitMs: 30_000,
  maxQueued: 32,
  cacheChars: 16 * 1024 * 1024,
  retryFailedAfterMs: 10 * 60_000,
  workerHeapMb: 256,
  onWorkerError: () => {},
};

export interface MarkdownRendererStats {
  /** Texts rendered (not from the cache), by outcome. */
  renders: Record<MarkdownOutcome, number>;
  /** Renders asked for a text already rendered or being rendered. */
  cacheHits: number;
  /** Renders refused because too many texts were waiting. */
  busyRefusals: number;
  cachedEntries: number;
  cachedChars: number;
  queued: number;
}

interface Job {
  id: number;
  markdown: string;
  resolve(result: JobResult): void;
}

/** A text that waited `maxWaitMs` for a busy machine: shown as plain text, not remembered as failed. */
const WAITED_TOO_LONG = Symbol('waited too long');
type JobResult = RenderedMarkdown & { [WAITED_TOO_LONG]?: true };

/** The text the worker has now: its budget's timer, when it was sent, the worker's CPU clock then (µs). */
interface Current {
  job: Job;
  timer: NodeJS.Timeout | null;
  startedAt: number;
  cpuAtStartUs: number;
}

interface Entry extends RenderedMarkdown {
  /** For a timed-out or failed text: when to try again (ms since epoch). */
  retryAt?: number;
}

/** The worker's module: built JavaScript, or the TypeScript source when this runs from it (tests). */
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);

/** Seconds a page asks the reader to wait when too many texts wait for the worker. */
export const MARKDOWN_BUSY_RETRY_AFTER_SECONDS = 2;

/** The renderer cannot take the text now: too many wait (`busy`), or it is closed (`closed`). Pages answer 503. */
export class MarkdownUnavailableError extends Error {
  override name = 'MarkdownUnavailableError';
  constructor(
    readonly reason: 'busy' | 'closed',
    readonly retryAfterSeconds = MARKDOWN_BUSY_RETRY_AFTER_SECONDS,
  ) {
    super(reason === 'busy' ? 'Too many chapters are being rendered at once; retry in a moment' : 'The Markdown renderer is closed');
  }
}

export class MarkdownRenderer {
  readonly #options: Required<MarkdownRendererOptions>;
  readonly #cache = new Map<string, Entry>();
  #cachedChars = 0;
  readonly #inFlight = new Map<string, Promise<RenderedMarkdown>>();
  readonly #queue: Job[] = [];
  #current: Current | null = null;
  #worker: Worker | null = null;
  #workerReady = false;
  #nextId = 1;
  #closed = false;
  readonly #counts = { renders: { rendered: 0, too_deep: 0, timed_out: 0, failed: 0 }, cacheHits: 0, busyRefusals: 0 };

  constructor(options: MarkdownRendererOptions = {}) {
    this.#options = { ...MARKDOWN_RENDERER_DEFAULTS, ...options };
  }

  /** The text's HTML, from the cache or rendered now; MarkdownUnavailableError when too many texts wait. */
  async render(markdown: string): Promise<RenderedMarkdown> {
    const key = createHash('sha256').update(markdown).digest('base64');
    const cached = this.#cache.get(key);
    if (cached && (cached.retryAt === undefined || cached.retryAt > Date.now())) {
      // Least recently used first out: a hit moves the entry to the end of the Map's order.
      this.#cache.delete(key);
      this.#cache.set(key, cached);
      this.#counts.cacheHits++;
      return { html: cached.html, outcome: cached.outcome };
    }
    const pending = this.#inFlight.get(key);
    if (pending) {
      this.#counts.cacheHits++;
      return pending;
    }
    if (markdown.length <= this.#options.inlineChars) return this.#remember(key, renderMarkdownNow(markdown));
    if (this.#closed) throw new MarkdownUnavailableError('closed');
    if (this.#queue.length >= this.#options.maxQueued) {
      this.#counts.busyRefusals++;
      throw new MarkdownUnavailableError('busy');
    }
    const rendered = new Promise<RenderedMarkdown>((resolve) => {
      this.#queue.push({ id: this.#nextId++, markdown, resolve });
      this.#pump();
    })
      .then((result) => this.#remember(key, result))
      .finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, rendered);
    return rendered;
  }

  /** Starts the worker now rather than for the first long text (the server does, at start). */
  start(): void {
    if (this.#closed || this.#worker) return;
    this.#startWorker();
    this.#idle();
  }

  stats(): MarkdownRendererStats {
    return {
      renders: { ...this.#counts.renders },
      cacheHits: this.#counts.cacheHits,
      busyRefusals: this.#counts.busyRefusals,
      cachedEntries: this.#cache.size,
      cachedChars: this.#cachedChars,
      queued: this.#queue.length + (this.#current ? 1 : 0),
    };
  }

  /** Stops the worker; texts still waiting are shown as plain text. */
  async close(): Promise<void> {
    this.#closed = true;
    const waiting = [...(this.#current ? [this.#current.job] : []), ...this.#queue.splice(0)];
    if (this.#current?.timer) clearTimeout(this.#current.timer);
    this.#current = null;
    for (const job of waiting) job.resolve({ html: markdownAsPlainText(job.markdown), outcome: 'failed' });
    const worker = this.#worker;
    this.#worker = null;
    if (worker) await worker.terminate();
  }

  #remember(key: string, answer: JobResult): RenderedMarkdown {
    const result: RenderedMarkdown = { html: answer.html, outcome: answer.outcome };
    this.#counts.renders[result.outcome]++;
    if (answer[WAITED_TOO_LONG]) return result; // the machine was busy: the next reader tries again
    const entry: Entry =
      result.outcome === 'timed_out' || result.outcome === 'failed'
        ? { ...result, retryAt: Date.now() + this.#options.retryFailedAfterMs }
        : result;
    const old = this.#cache.get(key);
    if (old) {
      this.#cache.delete(key);
      this.#cachedChars -= old.html.length;
    }
    if (entry.html.length <= this.#options.cacheChars) {
      this.#cache.set(key, entry);
      this.#cachedChars += entry.html.length;
      for (const [oldest, value] of this.#cache) {
        if (this.#cachedChars <= this.#options.cacheChars) break;
        this.#cache.delete(oldest);
        this.#cachedChars -= value.html.length;
      }
    }
    return result;
  }

  /** Sends the next waiting text to the worker when it is free (starting one when there is none). */
  #pump(): void {
    if (this.#current || this.#queue.length === 0 || this.#closed) return;
    const worker = this.#worker ?? this.#startWorker();
    // While texts wait, the worker keeps the process alive (idle, it does not: #idle).
    worker.ref();
    if (!this.#workerReady) return; // `ready` pumps again
    // biome-ignore lint/style/noNonNullAssertion: the queue is not empty (checked above).
    const job = this.#queue.shift()!;
    const current: Current = { job, timer: null, startedAt: Date.now(), cpuAtStartUs: 0 };
    this.#current = current;
    // The worker's CPU clock before the text, then the text: the budget counts this text's work only.
    void worker.cpuUsage().then(
      (usage) => {
        if (this.#current !== current) return;
        current.cpuAtStartUs = usage.user + usage.system;
        worker.postMessage({ id: job.id, markdown: job.markdown } satisfies RenderRequest);
        const first = Math.min(this.#options.timeoutMs, this.#options.maxWaitMs);
        current.timer = setTimeout(() => void this.#check(worker, current), first);
      },
      () => {}, // the worker ended meanwhile: its 'exit' handler fails the text
    );
  }

  /** The budget's timer: stop the text once it has had its CPU time, or waited `maxWaitMs` in all. */
  async #check(worker: Worker, current: Current): Promise<void> {
    const usage = await worker.cpuUsage().catch(() => null);
    if (this.#current !== current || !usage) return;
    const usedMs = (usage.user + usage.system - current.cpuAtStartUs) / 1000;
    const waitedMs = Date.now() - current.startedAt;
    if (usedMs >= this.#options.timeoutMs) return this.#giveUp('timed_out');
    if (waitedMs >= this.#options.maxWaitMs) return this.#giveUp('timed_out', { waitedTooLong: true });
    const next = Math.min(this.#options.timeoutMs - usedMs, this.#options.maxWaitMs - waitedMs);
    current.timer = setTimeout(() => void this.#check(worker, current), Math.max(1, Math.ceil(next)));
  }

  #startWorker(): Worker {
    const heapMb = Math.max(MIN_WORKER_HEAP_MB, this.#options.workerHeapMb);
    const worker = new Worker(WORKER_URL, {
      // A young generation like the server's own (--max-semi-space-size=64): with a worker's small
      // default, a long table took 2.5× as long to render as on the main thread.
      resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: Math.min(64, Math.floor(heapMb / 4)) },
    });
    this.#worker = worker;
    this.#workerReady = false;
    worker.on('message', (reply: RenderReply) => {
      if (worker !== this.#worker) return;
      if ('ready' in reply) {
        this.#workerReady = true;
        this.#pump();
        return;
      }
      const current = this.#current;
      if (!current || current.job.id !== reply.id) return;
      if (current.timer) clearTimeout(current.timer);
      this.#current = null;
      current.job.resolve('error' in reply ? plain(current.job, 'failed') : { html: reply.html, outcome: reply.outcome });
      this.#idle();
    });
    // A worker that breaks (out of memory, a crash) fails its text; the next text starts another.
    // One that breaks before it is ready fails every waiting text (no restarting in a loop).
    const broken = (err: unknown) => {
      if (worker !== this.#worker) return;
      this.#options.onWorkerError(err instanceof Error ? err : new Error(`the Markdown worker stopped (exit code ${err})`));
      if (this.#workerReady) return this.#giveUp('failed');
      this.#worker = null;
      for (const job of this.#queue.splice(0)) job.resolve(plain(job, 'failed'));
    };
    worker.on('error', broken);
    worker.on('exit', broken);
    return worker;
  }

  /** The current text is shown as plain text; the worker is stopped and the next text gets a new one. */
  #giveUp(outcome: 'timed_out' | 'failed', { waitedTooLong = false } = {}): void {
    const worker = this.#worker;
    this.#worker = null;
    this.#workerReady = false;
    if (worker) void worker.terminate();
    const current = this.#current;
    this.#current = null;
    if (current) {
      if (current.timer) clearTimeout(current.timer);
      const result: JobResult = plain(current.job, outcome);
      if (waitedTooLong) result[WAITED_TOO_LONG] = true;
      current.job.resolve(result);
    }
    this.#pump();
  }

  #idle(): void {
    if (this.#queue.length === 0) this.#worker?.unref();
    this.#pump();
  }
}

function plain(job: Job, outcome: 'timed_out' | 'failed'): RenderedMarkdown {
  return { html: markdownAsPlainText(job.markdown), outcome };
}
