/**
 * Domain errors. Route and domain code throws these; the error-handler plugin turns each into
 * `{success:false, error}` with its status. Anything else is a 500 with a generic message.
 */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Unauthorized') {
    super(401, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Forbidden') {
    super(403, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found') {
    super(404, message);
  }
}

export class UnprocessableError extends AppError {
  constructor(message: string) {
    super(422, message);
  }
}

/** 429 with `Retry-After` in whole seconds; the text is the spec's. */
export class TooManyRequestsError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(429, 'Rate limit exceeded', { 'retry-after': String(retryAfterSeconds) });
  }
}

/** Seconds a client is asked to wait before retrying when the database is unavailable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * 503 with `Retry-After`: the database could not be reached, stalled, or gave up on a statement
 * (see isDatabaseUnavailable in @lms/db). The error handler answers every such driver error with
 * it, so a client sees the same thing whichever query failed.
 */
export class DatabaseUnavailableError extends AppError {
  constructor() {
    super(503, 'The service is temporarily unavailable (database); retry shortly', {
      'retry-after': String(DATABASE_RETRY_AFTER_SECONDS),
    });
  }
}
