import type { CourseFieldsOut } from '@lms/contracts';
import type { z } from 'zod';
import type { FieldErrors } from './forms.js';

// The settings form's credit-evidence fields (docs/authoring.md, "Pre-test, post-test and
// evaluation"): the course's evaluation items as a textarea of `key | Indonesian | English` lines,
// and back; the contract's own schema checks them (CoursePatchBody), and a problem is said with
// the line it is on.

/** The words these fields use (the studio's messages.ts, in the person's language). */
export interface EvidenceFieldWords {
  evaluationItemsLine: (line: number, message: string) => string;
  evaluationItemsShape: string;
  evaluationItemsRepeated: string;
}

/** Stored items as the textarea's lines; null: empty (the scheme's default items). */
export function evaluationItemsText(items: CourseFieldsOut['evaluationItems']): string {
  return items === null ? '' : items.map((item) => `${item.key} | ${item.id} | ${item.en}`).join('\n');
}

/**
 * The textarea's lines as the items the API takes (blank: null). A line that is not three parts
 * is an error of the field, said with its line number; the rest is the contract's to check.
 */
export function evaluationItemsOf(
  typed: string,
  errors: FieldErrors,
  words: EvidenceFieldWords,
): { key: string; id: string; en: string }[] | null {
  const lines = typed.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length === 0) return null;
  return lines.map((line, i) => {
    const parts = line.split('|').map((p) => p.trim());
    if (parts.length !== 3) errors.evaluationItems ??= words.evaluationItemsLine(i + 1, words.evaluationItemsShape);
    return { key: parts[0] ?? '', id: parts[1] ?? '', en: parts.slice(2).join('|') };
  });
}

/**
 * A schema issue about the items, said with its line (`evaluationItems.3.en` is line 4); `said`:
 * the issue in the page's words (../form-errors.ts), never the contract's English.
 */
export function evaluationItemsIssue(issue: z.core.$ZodIssue, words: EvidenceFieldWords, said: string): string {
  const [, line] = issue.path;
  if (typeof line !== 'number') return said;
  // The contract's one custom rule of an item: its key used on an earlier line.
  const repeated = issue.code === 'custom' && issue.path[2] === 'key';
  return words.evaluationItemsLine(line + 1, repeated ? words.evaluationItemsRepeated : said);
}
