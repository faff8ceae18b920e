import { type FSWatcher, watch } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import fp from 'fastify-plugin';
import { type PartnerRegistry, PartnersFileError, parsePartnersFile } from '../domain/partners.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The current partner registry: the last good content of PARTNERS_FILE. */
    readonly partners: PartnerRegistry;
  }
}

export interface PartnersPluginOptions {
  /** PARTNERS_FILE; a relative path is taken from the working directory. */
  file: string;
  /** Changes are read this long after the last file event, so a half-written file is not read. */
  debounceMs?: number;
  /**
   * A stat() of the file this often, as well as fs.watch: directory watches miss changes on some
   * filesystems (network mounts, some container bind mounts).
   */
  pollIntervalMs?: number;
  /** Watch the directory for events (default true); false leaves polling alone (tests use it). */
  watch?: boolean;
}

/**
 * Loads the partner registry at start (a missing or invalid file stops the start with a message
 * naming the bad entries) and reloads it when the file changes. The directory is watched, not the
 * file: editors and `mv new old` replace the file (a new inode), which a watch on the old file
 * would never report. A bad edit keeps the last good registry and logs why.
 */
export default fp<PartnersPluginOptions>(
  async (app, options) => {
    const file = path.resolve(options.file);
    const debounceMs = options.debounceMs ?? 150;
    const pollIntervalMs = options.pollIntervalMs ?? 2000;
    const log = app.log.child({ partnersFile: file });

    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new PartnersFileError(`Cannot read partners file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    let registry = parsePartnersFile(text, file);
    let loadedText = text;
    let lastProblem: string | undefined;
    let lastStat = await statSignature(file);
    log.info({ partners: registry.issuers() }, 'partner registry loaded');

    app.decorate('partners', {
      getter: () => registry,
    });

    let closed = false;
    let debounceTimer: NodeJS.Timeout | undefined;
    let reloading: Promise<void> | undefined;
    let reloadAgain = false;

    const reportOnce = (problem: string) => {
      app.gatewayMetrics.partnersFileRejected();
      // The poll would otherwise log the same bad file every few seconds.
      if (problem === lastProblem) return;
      lastProblem = problem;
      log.error({ problem }, `partners file rejected, keeping the last good registry: ${problem}`);
    };

    const reload = async () => {
      lastStat = await statSignature(file);
      let next: string;
      try {
        next = await readFile(file, 'utf8');
      } catch (err) {
        reportOnce(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        return;
      }
      if (next === loadedText) {
        lastProblem = undefined;
        return;
      }
      try {
        registry = parsePartnersFile(next, file);
      } catch (err) {
        reportOnce(err instanceof PartnersFileError ? err.message : String(err));
        return;
      }
      loadedText = next;
      lastProblem = undefined;
      log.info({ partners: registry.issuers() }, 'partner registry reloaded');
    };

    const runReload = () => {
      if (closed) return;
      if (reloading) {
        reloadAgain = true;
        return;
      }
      reloading = reload()
        .catch((err) => log.error({ err }, 'partners reload failed'))
        .finally(() => {
          reloading = undefined;
          if (reloadAgain) {
            reloadAgain = false;
            runReload();
          }
        });
    };

    const scheduleReload = () => {
      if (closed) return;
      clearTimeout(debounceTimer);
      debounceTimer = setTimeout(runReload, debounceMs);
      debounceTimer.unref();
    };

    const base = path.basename(file);
    let watcher: FSWatcher | undefined;
    if (options.watch !== false) {
      try {
        watcher = watch(path.dirname(file), { persistent: false }, (_event, filename) => {
          // filename can be null on some platforms: then any change in the directory counts.
          if (!filename || filename.toString() === base) scheduleReload();
        });
        watcher.on('error', (err) => log.warn({ err }, 'watching the partners directory failed; polling continues'));
      } catch (err) {
        log.warn({ err }, 'cannot watch the partners directory; relying on polling');
      }
    }

    const poll = setInterval(() => {
      void statSignature(file).then((signature) => {
        if (signature !== lastStat) scheduleReload();
      });
    }, pollIntervalMs);
    poll.unref();

    app.addHook('onClose', async () => {
      closed = true;
      watcher?.close();
      clearInterval(poll);
      clearTimeout(debounceTimer);
      await reloading;
    });
  },
  { name: 'partners', dependencies: ['metrics'] },
);

/** Identity and version of the file as stat() sees it; 'missing' when it is not there. */
async function statSignature(file: string): Promise<string> {
  try {
    const s = await stat(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
}
