// What both servers (apps/*/src/server.ts) do while starting that is not their own: an operator's
// mistake ends the start with its message and exit code 1, and the Prometheus listener is opened
// or the start stops.

import type { AppMetrics } from './app-metrics.js';

/** An error class whose errors are an operator's mistake (a bad variable, a bad partners file, a locked data directory). */
export type OperatorMistake = abstract new (...args: never[]) => Error;

/**
 * Runs one start-up step. An error of one of `mistakes` is printed as its message alone (the
 * operator fixes a setting; a stack trace would only hide the sentence) and the process exits 1;
 * any other error goes on up.
 */
export async function orExit<T>(step: () => T | Promise<T>, ...mistakes: OperatorMistake[]): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (!mistakes.some((mistake) => err instanceof mistake)) throw err;
    console.error((err as Error).message);
    process.exit(1);
  }
}

/** The part of an app that serveMetrics needs: its logger, to close it, and its metrics. */
interface MetricsApp {
  log: { info(details: object, message: string): void };
  close(): Promise<unknown>;
}

/**
 * The Prometheus endpoint on its own listener (closed with the app). A port already taken stops
 * the start: another process there would answer the scrape with its own numbers.
 */
export async function serveMetrics(app: MetricsApp, metrics: AppMetrics, where: { METRICS_HOST: string; METRICS_PORT: number }) {
  try {
    const listener = await metrics.listen({ host: where.METRICS_HOST, port: where.METRICS_PORT });
    app.log.info({ url: listener.url }, 'metrics: Prometheus endpoint listening');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    console.error(
      `Cannot serve metrics on ${where.METRICS_HOST}:${where.METRICS_PORT} (${code}): set METRICS_PORT to a free port, or 0 for no metrics listener.`,
    );
    await app.close();
    process.exit(1);
  }
}
