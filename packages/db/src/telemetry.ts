import pg from 'pg';
import { isDatabaseUnavailable, isTransactionConflict } from './errors.js';

// What the PostgreSQL pool's connections and statements tell about the database: whether it
// answers (Availability: the lms_db_available gauge and the LMS's one log line per outage) and the
// failures by kind (DbErrorCounts: lms_db_errors_total). postgres.ts builds its pool from these.

/** The database went away (`available: false`, with the error that showed it) or came back. */
export type AvailabilityListener = (change: { available: boolean; cause?: unknown }) => void;

export interface DbErrorCounts {
  /** A new connection could not be opened (refused, timed out, authentication). */
  connect: number;
  /** A call waited connectTimeoutMs for a free connection of a full pool and gave up. */
  poolTimeout: number;
  /** A statement failed for lack of the server or of time (isDatabaseUnavailable: cut, stalled, statement_timeout). */
  unavailable: number;
  /** A statement the server refused (a constraint, a bad value): some are expected, e.g. a race on a unique key. */
  statement: number;
  /** A transaction rolled back by the server for a concurrent one (isTransactionConflict: deadlock, serialization). */
  conflict: number;
  /** A pooled connection broke while idle (a server restart, a cut); the pool replaces it. */
  idleConnection: number;
}

/**
 * Whether the database answers, from what the pool's connections see: a connection or statement
 * that fails for lack of the server or of time (isDatabaseUnavailable) says no; a successful one,
 * or another error the server itself sent, says yes. The newest attempt decides: one that started before the
 * attempt behind the current state finishes too late to change it, so the calls in flight when an
 * outage starts or ends do not make the state flap.
 */
export class Availability {
  available = true;
  /** Changes from available to unavailable. */
  outages = 0;
  private started = 0;
  private decidedBy = 0;
  private closed = false;
  private readonly listeners = new Set<AvailabilityListener>();

  /** Numbers an attempt (a connection or a statement) as it starts. */
  start(): number {
    this.started += 1;
    return this.started;
  }

  settle(attempt: number, err: unknown): void {
    if (this.closed || attempt < this.decidedBy) return;
    let available: boolean;
    if (!err) available = true;
    else if (isDatabaseUnavailable(err)) available = false;
    else if (isServerError(err)) available = true;
    else return;
    this.decidedBy = attempt;
    if (available === this.available) return;
    this.available = available;
    if (!available) this.outages += 1;
    const change = available ? { available } : { available, cause: err };
    for (const listener of this.listeners) listener(change);
  }

  subscribe(listener: AvailabilityListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** After close, the errors of calls still in flight say nothing about the server. */
  close(): void {
    this.closed = true;
  }
}

/** An error the server sent (it has a SQLSTATE), as opposed to one of the driver or the socket. */
function isServerError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

type Callback = (err: Error | null | undefined, ...rest: unknown[]) => void;

/** pg-pool's error when no connection of a full pool became free within connectionTimeoutMillis. */
const POOL_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';

/**
 * The pool, counting the calls that gave up waiting for a free connection (pool.query() and the
 * transactions' checkouts both go through connect()). The wait itself is bounded by
 * connectionTimeoutMillis; the count says the pool was too small for the load, or the database too slow.
 */
export function countingPool(errors: DbErrorCounts): typeof pg.Pool {
  const countTimeout = (err: unknown) => {
    if (err instanceof Error && err.message === POOL_TIMEOUT_MESSAGE) errors.poolTimeout += 1;
  };
  return class CountingPool extends pg.Pool {
    // biome-ignore lint/suspicious/noExplicitAny: overrides pg's overloaded method (callback or promise): only `any` matches every overload.
    override connect(...args: any[]): any {
      const callback = args[0] as Callback | undefined;
      if (typeof callback === 'function') {
        return (super.connect as (cb: Callback) => void)((err, ...rest) => {
          countTimeout(err);
          callback(err, ...rest);
        });
      }
      return (super.connect as () => Promise<unknown>)().catch((err: unknown) => {
        countTimeout(err);
        throw err;
      });
    }
  };
}

/**
 * The pool's client class: it reports each connection and statement to `availability` (and
 * counts the failures in `errors`), and ends
 * itself when a statement hit `query_timeout`. node-postgres leaves such a client waiting for an
 * answer that may never come (brianc/node-postgres#3399): pool.query() discards it, but a client
 * checked out for a transaction would go back to the pool stuck, and every statement queued on it
 * would time out too. Ended, it is dropped from the pool when released.
 */
export function observedClient(availability: Availability, errors: DbErrorCounts): typeof pg.Client {
  return class ObservedClient extends pg.Client {
    // biome-ignore lint/suspicious/noExplicitAny: overrides pg's overloaded method (callback or promise): only `any` matches every overload.
    override connect(callback?: (err: Error) => void): any {
      const attempt = availability.start();
      const settle = (err: unknown) => {
        if (err) errors.connect += 1;
        availability.settle(attempt, err);
      };
      if (callback) {
        return super.connect((err) => {
          settle(err);
          callback(err);
        });
      }
      return super.connect().then(
        () => settle(null),
        (err: unknown) => {
          settle(err);
          throw err;
        },
      );
    }

    // biome-ignore lint/suspicious/noExplicitAny: overrides pg's overloaded method (callback or promise): only `any` matches every overload.
    override query(...args: any[]): any {
      // Streams and cursors (submittables) are not used here; pass them through untouched.
      if (typeof args[0]?.submit === 'function') return (super.query as (...a: unknown[]) => unknown)(...args);
      const attempt = availability.start();
      const settle = (err: unknown) => {
        if (err instanceof Error && err.message === 'Query read timeout') void this.end().catch(() => {});
        if (err) {
          if (isDatabaseUnavailable(err)) errors.unavailable += 1;
          else if (isTransactionConflict(err)) errors.conflict += 1;
          else errors.statement += 1;
        }
        availability.settle(attempt, err);
      };
      const at = args.findIndex((a) => typeof a === 'function');
      if (at >= 0) {
        const callback = args[at] as Callback;
        args[at] = (err: Error | null | undefined, ...rest: unknown[]) => {
          settle(err);
          callback(err, ...rest);
        };
        return (super.query as (...a: unknown[]) => unknown)(...args);
      }
      const result = (super.query as (...a: unknown[]) => Promise<unknown>)(...args);
      return result.then(
        (value) => {
          settle(null);
          return value;
        },
        (err: unknown) => {
          settle(err);
          throw err;
        },
      );
    }
  };
}
