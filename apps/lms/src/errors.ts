/**
 * Domain errors. Route and domain code throws these by what went wrong (not found, conflict...),
 * never by HTTP status: `HTTP_STATUS` below is the one place a kind becomes a status, and the
 * error-handler plugin turns each into `{success:false, error}` with it. Anything else is a 500
 * with a generic message.
 */
export type ErrorKind =
  | 'bad-request'
  | 'unauthorized'
  | 'payment-required'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'unprocessable'
  | 'too-many-requests'
  | 'unavailable';

/** The status of each kind of domain error: read by the error handlers (API, pages) and kept idempotent answers. */
export const HTTP_STATUS: Readonly<Record<ErrorKind, number>> = {
  'bad-request': 400,
  unauthorized: 401,
  'payment-required': 402,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  unprocessable: 422,
  'too-many-requests': 429,
  unavailable: 503,
};

export abstract class AppError extends Error {
  abstract readonly kind: ErrorKind;
  constructor(
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** From HTTP_STATUS; Fastify and the metrics read an error's `statusCode`. */
  get statusCode(): number {
    return HTTP_STATUS[this.kind];
  }
}

/** Headers asking a client to come back in whole seconds. */
function retryAfter(seconds: number): Record<string, string> {
  return { 'retry-after': String(seconds) };
}

/** A field of a request that is wrong, and what is wrong with it (as a body's schema errors are named). */
export interface FieldProblem {
  path: string;
  message: string;
}

export class BadRequestError extends AppError {
  readonly kind = 'bad-request';
  /** `details`: the fields at fault, sent as the schema's own 400 sends them (a document checked against the database). */
  constructor(
    message: string,
    readonly details?: readonly FieldProblem[],
  ) {
    super(message);
  }
}

/** A 400 naming fields the way a body's schema errors do: `Invalid request body: path: message; ...` with `details`. */
export function invalidBody(problems: readonly FieldProblem[]): BadRequestError {
  return new BadRequestError(
    `Invalid request body: ${problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; ')}`,
    problems,
  );
}

/** The body of a domain error's answer: `{success:false, error}`, with `details` when the error names fields. */
export function errorBody(err: AppError): { success: false; error: string; details?: readonly FieldProblem[] } {
  return err instanceof BadRequestError && err.details
    ? { success: false, error: err.message, details: err.details }
    : { success: false, error: err.message };
}

export class UnauthorizedError extends AppError {
  readonly kind = 'unauthorized';
  constructor(message = 'Unauthorized') {
    super(message);
  }
}

export class PaymentRequiredError extends AppError {
  readonly kind = 'payment-required';
}

export class ForbiddenError extends AppError {
  readonly kind = 'forbidden';
  constructor(message = 'Forbidden') {
    super(message);
  }
}

export class NotFoundError extends AppError {
  readonly kind = 'not-found';
  constructor(message = 'Not found') {
    super(message);
  }
}

/** Something else holds what this request needs (with `Retry-After` when it is worth retrying). */
export class ConflictError extends AppError {
  readonly kind = 'conflict';
  constructor(message: string, retryAfterSeconds?: number) {
    super(message, retryAfterSeconds === undefined ? {} : retryAfter(retryAfterSeconds));
  }
}

export class UnprocessableError extends AppError {
  readonly kind = 'unprocessable';
}

/** 429 with `Retry-After` in whole seconds; the text is the spec's unless given. */
export class TooManyRequestsError extends AppError {
  readonly kind = 'too-many-requests';
  constructor(retryAfterSeconds: number, message = 'Rate limit exceeded') {
    super(message, retryAfter(retryAfterSeconds));
  }
}

/** The service cannot do this now: not enabled here, or shutting down (with `Retry-After` when it will pass). */
export class UnavailableError extends AppError {
  readonly kind = 'unavailable';
  constructor(message: string, retryAfterSeconds?: number) {
    super(message, retryAfterSeconds === undefined ? {} : retryAfter(retryAfterSeconds));
  }
}

/** Seconds a client is asked to wait before retrying when the database is unavailable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * 503 with `Retry-After`: the database could not be reached, stalled, or gave up on a statement
 * (see isDatabaseUnavailable in @lms/db). The error handler answers every such driver error with
 * it, so a client sees the same thing whichever query failed.
 */
export class DatabaseUnavailableError extends UnavailableError {
  constructor() {
    super('The service is temporarily unavailable (database); retry shortly', DATABASE_RETRY_AFTER_SECONDS);
  }
}

/** Seconds a client is asked to wait before retrying a request that met a concurrent one. */
export const CONFLICT_RETRY_AFTER_SECONDS = 1;

/**
 * 503 with `Retry-After`: PostgreSQL rolled the request's transaction back for a concurrent one
 * (a deadlock or a serialization failure, isTransactionConflict in @lms/db) and it still did so on
 * the last try (inTransaction). Nothing of the request was kept; sent again, it normally passes.
 */
export class TransactionConflictError extends UnavailableError {
  constructor() {
    super('The request met a concurrent one and its transaction was rolled back; retry it', CONFLICT_RETRY_AFTER_SECONDS);
  }
}
