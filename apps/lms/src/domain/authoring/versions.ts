import { ConflictError } from '../../errors.js';

/**
 * A save made on an older version of what it edits (a chapter, a quiz, a course's fields): the
 * studio's forms carry the version they were opened at, and a write given `expectedVersion`
 * refuses to overwrite someone else's later save (409). `stored` is what is there now, for the
 * page that shows it next to what was typed.
 */
export class StaleVersionError<T = unknown> extends ConflictError {
  constructor(
    readonly what: 'chapter' | 'quiz' | 'course',
    readonly expected: number,
    readonly current: number,
    readonly stored: T,
  ) {
    super(`The ${what} was changed by someone else since you opened it (you edited version ${expected}; it is now at version ${current})`);
  }

  /** The current version as the API's ETag: the 409 answer carries it (read again, then save over it). */
  get etag(): string {
    return `"${this.current}"`;
  }
}

/** A document replace made over another document than the course's now (its `If-Match` digest is stale). */
export class StaleDocumentError extends ConflictError {
  /** The current document's ETag. */
  readonly etag: string;
  constructor(expected: string, current: string) {
    super(
      `The course was changed by someone else since that document was read (If-Match "${expected}"; it is now "${current}"): ` +
        'export it again, then replace',
    );
    this.etag = `"${current}"`;
  }
}

/** Throws StaleVersionError when `expected` is given and differs from `current`. */
export function assertVersion<T>(what: 'chapter' | 'quiz' | 'course', expected: number | undefined, current: number, stored: T): void {
  if (expected !== undefined && expected !== current) throw new StaleVersionError(what, expected, current, stored);
}
