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
}

/** Throws StaleVersionError when `expected` is given and differs from `current`. */
export function assertVersion<T>(what: 'chapter' | 'quiz' | 'course', expected: number | undefined, current: number, stored: T): void {
  if (expected !== undefined && expected !== current) throw new StaleVersionError(what, expected, current, stored);
}
