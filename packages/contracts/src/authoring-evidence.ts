import { z } from 'zod';
import { text } from './text.js';

// The credit-evidence fields an author writes (docs/authoring.md, "Pre-test, post-test and
// evaluation"): a quiz's evidence role, the course's post-test minimum and its evaluation items.
// Kept apart from authoring.ts, which uses them in its quiz and course shapes.

/** What a quiz is for the credit evidence: the course's pre-test or post-test (one of each per course). */
export const EVIDENCE_ROLES = ['pre_test', 'post_test'] as const;
export type EvidenceRole = (typeof EVIDENCE_ROLES)[number];

export const evidenceRole = () =>
  z
    .enum(EVIDENCE_ROLES)
    .nullable()
    .describe(
      "`pre_test` (taken before the course's first chapter opens; not the final exam), `post_test` (counts at the post-test " +
        'minimum), or null: an ordinary quiz. At most one pre-test and one post-test per course: a second one is a 409 naming the other quiz',
    );

/** Bounds of a course's own evaluation items (as a scheme's: domain/evidence/schemes.ts). */
export const EVALUATION_ITEM_LIMITS = { items: 20, keyPattern: /^[a-z][a-z0-9_]{0,39}$/, textChars: 300 } as const;

const itemText = () => text().trim().min(1).max(EVALUATION_ITEM_LIMITS.textChars);

export const EvaluationItemInput = z
  .strictObject({
    key: text().regex(EVALUATION_ITEM_LIMITS.keyPattern, 'must be a lower-case letter, then up to 39 lower-case letters, digits or _'),
    id: itemText().describe('The statement in Bahasa Indonesia'),
    en: itemText().describe('The statement in English'),
  })
  .meta({ id: 'EvaluationItem', description: 'One Likert item (1-5) of the evaluation form' });

/** The course's own evaluation items (1-20, keys unique), or null: its scheme's, else the four standard ones. */
export const evaluationItems = () =>
  z
    .array(EvaluationItemInput)
    .min(1, 'give at least one item, or null for the default items')
    .max(EVALUATION_ITEM_LIMITS.items, `at most ${EVALUATION_ITEM_LIMITS.items} evaluation items`)
    .superRefine((items, ctx) => {
      const seen = new Set<string>();
      items.forEach((item, i) => {
        if (seen.has(item.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `key ${item.key} is repeated` });
        seen.add(item.key);
      });
    })
    .nullable()
    .describe(
      "The evaluation form's Likert items (1-20, each a unique `key` and its statement in `id` and `en`, 1-300 characters), " +
        "or null: the scheme's default items, else the four standard ones",
    );

/** The course's post-test minimum score (0-100), or null: the scheme's. */
export const postTestMinScore = () =>
  z
    .number()
    .int()
    .min(0)
    .max(100)
    .nullable()
    .describe("The post-test's minimum score for this course (0-100), or null: the scheme's. It can raise the scheme's, never lower it");

/** The answers' side (no transforms). */
export const EvidenceRoleOut = z.enum(EVIDENCE_ROLES).nullable().describe('`pre_test`, `post_test`, or null');
export const EvaluationItemOut = z.object({ key: z.string(), id: z.string(), en: z.string() });

// A course document's accreditations (docs/authoring.md, "Accreditations in a document"): exported
// as they are; read back only to check they are unchanged (an admin records them through
// /api/courses/{id}/accreditations, never through a document).

export const DocumentAccreditationInput = z.strictObject({
  scheme: text().max(20),
  reference: text().max(200),
  validFrom: text().max(40),
  validUntil: text().max(40).nullable().default(null),
  value: z.number(),
  professions: z.array(text().max(100)).max(20).default([]),
});

export const documentAccreditations = () =>
  z
    .array(DocumentAccreditationInput)
    .max(100)
    .optional()
    .describe(
      "The course's accreditations as exported, read-only: left out, or the same as the course's, nothing happens. A teacher's " +
        "or partner's document that changes them is a 403; an admin's import ignores the change and says so in `ignored`. " +
        'Record them with POST /api/courses/{id}/accreditations',
    );

export const DocumentAccreditationOut = z
  .object({
    scheme: z.string(),
    reference: z.string(),
    validFrom: z.string(),
    validUntil: z.string().nullable(),
    value: z.number(),
    professions: z.array(z.string()),
  })
  .meta({ id: 'DocumentAccreditation' });

export const IgnoredParts = z
  .array(z.string())
  .optional()
  .describe("What the write left as it was, and why (an admin's document that changed the accreditations)");
