import type { FastifyServerOptions } from 'fastify';
import { stdSerializers } from 'pino';

type LoggerOption = FastifyServerOptions['logger'];

/**
 * The LMS's logger options: the given ones (or the configured level) with an `err` serializer
 * that keeps the values of SQL statements out of the logs, whatever the level.
 */
export function lmsLoggerOptions(given: LoggerOption | undefined, level: string): LoggerOption {
  if (given === false) return false;
  const options = given === undefined || given === true ? { level } : given;
  return { ...options, serializers: { ...options.serializers, err: serializeError } };
}

/**
 * pino's error serializer, on a copy of the error (and its causes) without the values a failed
 * statement carried. Drizzle's error says `Failed query: <sql>\nparams: <values>` in its message
 * and stack and keeps `params` as a field: the SQL stays, the values go (members' e-mails,
 * membership ids). PostgreSQL's `detail` and `where` can quote a row's values (`Key (email)=(...)
 * already exists`) and a data exception's message the value it refused: those are dropped or
 * blanked. The SQLSTATE (`code`), constraint, table and column stay.
 */
export function serializeError(err: Error): ReturnType<typeof stdSerializers.err> {
  return stdSerializers.err(withoutParameters(err, 0) as Error);
}

const DROPPED_FIELDS = new Set(['params', 'detail', 'where', 'internalQuery']);

function withoutParameters(err: unknown, depth: number): unknown {
  if (!isErrorLike(err) || depth > 8) return err;
  const original = err as Error & Record<string, unknown>;
  const copy = Object.create(Object.getPrototypeOf(original) as object) as Record<string, unknown>;
  for (const key in original) {
    if (DROPPED_FIELDS.has(key) || key === 'cause' || key === 'errors') continue;
    copy[key] = original[key];
  }
  let message = original.message;
  if (typeof original.query === 'string' && message.startsWith('Failed query: ')) {
    message = `Failed query: ${original.query}`;
  } else if (typeof original.code === 'string' && /^22[0-9A-Z]{3}$/.test(original.code)) {
    // A data exception names the value it refused: `invalid input syntax for type uuid: "..."`.
    message = message.replace(/"[^"]*"/g, '"…"');
  }
  Object.defineProperty(copy, 'message', { value: message, enumerable: false, writable: true, configurable: true });
  const stack = typeof original.stack === 'string' ? original.stack : '';
  const frames = stack.split('\n').filter((line) => /^\s+at /.test(line));
  const rebuilt = message === original.message ? stack : [`${original.name}: ${message}`, ...frames].join('\n');
  Object.defineProperty(copy, 'stack', { value: rebuilt, enumerable: false, writable: true, configurable: true });
  if (original.cause !== undefined) {
    Object.defineProperty(copy, 'cause', {
      value: withoutParameters(original.cause, depth + 1),
      enumerable: false,
      writable: true,
      configurable: true,
    });
  }
  const errors = original.errors;
  if (Array.isArray(errors)) copy.errors = errors.map((e) => withoutParameters(e, depth + 1));
  return copy;
}

function isErrorLike(err: unknown): err is { message: string } {
  return typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string';
}
