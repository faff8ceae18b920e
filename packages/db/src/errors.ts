/**
 * "The database cannot answer right now, try again shortly", as opposed to "this statement is
 * wrong" (a constraint, a bad value, a missing table). Looks through Drizzle's DrizzleQueryError
 * (whose `cause` is the driver's error), AggregateErrors (a host name with several addresses)
 * and causes in general, for either driver (node-postgres; PGlite once closed).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [err];
  while (pending.length > 0 && seen.size < 16) {
    const e = pending.shift();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const { code, message, cause, errors } = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08') || UNAVAILABLE_SOCKET_CODES.has(code))) {
      return true;
    }
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.startsWith(m))) return true;
    pending.push(cause);
    if (Array.isArray(errors)) pending.push(...errors);
  }
  return false;
}

/**
 * SQLSTATEs that say the server is going away, not ready, out of connections, or gave up on a
 * statement that ran past `statement_timeout` (57014, also a cancel). Class 08 (connection
 * exception) is matched by its prefix.
 */
const UNAVAILABLE_SQLSTATES = new Set([
  '57014', // query_canceled: statement_timeout
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovering)
  '57P05', // idle_session_timeout
  '53300', // too_many_connections
  '55P03', // lock_not_available (lock_timeout)
  '25P03', // idle_in_transaction_session_timeout
]);

/** Socket errors while connecting or on an open connection (including DNS for the server's name). */
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/** node-postgres and pg-pool report these as plain Errors without a code; PGlite once it is closed. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated', // "... unexpectedly", "... due to connection timeout", or by end()
  'timeout exceeded when trying to connect', // no pooled client became free within connectionTimeoutMillis
  'Query read timeout', // query_timeout: the server did not answer (a stall)
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool', // shutting down
  'PGlite is closed',
];

/**
 * The SQLSTATE of a database error, whether the driver's error comes bare or wrapped by Drizzle
 * (DrizzleQueryError's `cause`); undefined for anything else.
 */
export function sqlStateOf(err: unknown): string | undefined {
  for (
    let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && typeof e === 'object' && depth < 4;
    e = e.cause as typeof e, depth += 1
  ) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  }
  return undefined;
}

/**
 * PostgreSQL rolled the transaction back because of a concurrent one: a deadlock (40P01), of which
 * it aborts one side, or a serialization failure (40001). Nothing of it was committed, so running
 * it again from the start is safe, and usually succeeds (inTransaction does it).
 */
export function isTransactionConflict(err: unknown): boolean {
  const state = sqlStateOf(err);
  return state === '40P01' || state === '40001';
}
