import type { z } from 'zod';
import type { FormErrorWords } from './form-error-messages.js';

// The one place where a schema's problem becomes a sentence a person reads beside a field. The
// JSON API keeps the contract's English messages (the spec's); a page never shows them: each zod
// issue is read by its code and its numbers (minimum, maximum, expected type), with the kind of
// field it belongs to, and said with a message of the page's catalog (./form-error-messages.ts).

/** What a field holds, where the issue alone does not say how to write it right. */
export type FieldKind = 'text' | 'amount' | 'currency' | 'creditScheme' | 'date' | 'url' | 'code';

export type Issue = z.core.$ZodIssue;

/** A zod issue as a sentence in the page's language; `kind`: the field's kind (a pattern it failed). */
export function issueMessage(issue: Issue, words: FormErrorWords, kind: FieldKind = 'text'): string {
  const bound = (n: unknown) => (typeof n === 'number' || typeof n === 'bigint' ? Number(n) : Number.NaN);
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'int') return words.wholeNumber;
      if (issue.expected === 'number') return words.number;
      return kind === 'text' ? words.required : kindMessage(kind, words);
    case 'too_small': {
      const min = bound(issue.minimum);
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint')
        return issue.inclusive === false ? words.above(min) : words.atLeast(min);
      if (issue.origin === 'string' && min <= 1) return words.required;
      if (issue.origin === 'string') return words.tooShort(min);
      return words.atLeastItems(min);
    }
    case 'too_big': {
      const max = bound(issue.maximum);
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') return words.atMost(max);
      if (issue.origin === 'string') return words.tooLong(max);
      return words.tooMany(max);
    }
    case 'not_multiple_of':
      return words.wholeNumber;
    case 'invalid_format':
      return issue.format === 'datetime' || issue.format === 'date' ? words.date : kindMessage(kind, words);
    case 'invalid_value':
      return words.choice;
    case 'custom':
      if (issue.path.at(-1) === 'endDate') return words.endBeforeStart;
      return words.invalid;
    default:
      return words.invalid;
  }
}

function kindMessage(kind: FieldKind, words: FormErrorWords): string {
  switch (kind) {
    case 'amount':
      return words.amount;
    case 'currency':
      return words.currency;
    case 'creditScheme':
      return words.creditScheme;
    case 'date':
      return words.date;
    case 'url':
      return words.url;
    case 'code':
      return words.code;
    default:
      return words.invalid;
  }
}

/**
 * Every issue of a failed parse by the form field it belongs to (the first per field), said in the
 * page's language. `fieldOf`: the form field of an issue's path; `kindOf`: the kind of a field.
 */
export function issuesByField(
  error: z.ZodError,
  words: FormErrorWords,
  fieldOf: (path: PropertyKey[]) => string,
  kindOf: (field: string) => FieldKind = () => 'text',
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = fieldOf(issue.path);
    out[field] ??= issueMessage(issue, words, kindOf(field));
  }
  return out;
}

/**
 * A domain refusal's details (a BadRequestError's `path` and English `message`) by form field: the
 * page says in its own words that the value was refused, never the domain's English.
 */
export function refusalsByField(details: readonly { path: string }[] | undefined, words: FormErrorWords): Record<string, string> {
  return Object.fromEntries((details ?? []).map((d) => [d.path.split('.')[0] || 'form', words.invalid]));
}
