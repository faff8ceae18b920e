// One list per concept (issue 41): each list of values the code knows is written here once, with
// no dependency (not even zod), so that the database schema (`@lms/db` imports this file through
// `@lms/contracts/lists` for its enums, defaults and checks), the zod contracts (hence the OpenAPI
// document), the CLI help and the domain all derive from the same constant. Adding a value here
// changes the TypeScript types everywhere; a value of a PostgreSQL enum (USER_ROLES) also needs
// a migration (`db:check-drift` says so).

/** A person's role, the values of the `user_role` database enum, from least to most rights. */
export const USER_ROLES = ['student', 'teacher', 'admin', 'super_admin'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** The roles that may author by session (a student never does; which courses: domain/authoring). */
export const STAFF_ROLES = ['teacher', 'admin', 'super_admin'] as const satisfies readonly UserRole[];

/** The roles that decide on purchases (confirm, reject, refund) and administer an institution. */
export const ADMIN_ROLES = ['admin', 'super_admin'] as const satisfies readonly UserRole[];

/**
 * Question kinds the scorer knows. `multiple_choice`: one right option among 2-10 (single
 * choice, the spec's name); `multiple_answer`: one or more right options, answered with every
 * right option's id (comma-separated) and nothing else; `true_false`: two options, one right;
 * `short_answer`: a text answer compared with `correctAnswer` normalised (Unicode NFC, trimmed,
 * spaces collapsed, case-insensitive); `essay`: a free text kept with the attempt, never scored
 * (it counts toward no total; `essayAnswer` is the model answer, an answer key like the others).
 */
export const QUESTION_KINDS = ['multiple_choice', 'multiple_answer', 'true_false', 'short_answer', 'essay'] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

/** The kinds answered by choosing options (they have 2-10 options, some of them right). */
export const CHOICE_KINDS = ['multiple_choice', 'multiple_answer', 'true_false'] as const satisfies readonly QuestionKind[];
export type ChoiceKind = (typeof CHOICE_KINDS)[number];
export function isChoiceKind(kind: string): kind is ChoiceKind {
  return (CHOICE_KINDS as readonly string[]).includes(kind);
}

/**
 * Credit schemes are an open set (a partner names its own), bounded by a shape: CREDIT_SCHEME
 * (courses.credit_scheme's check constraint is built from it). These are the schemes the code and
 * its docs know by name, the default first: the examples of help texts and descriptions.
 */
export const KNOWN_CREDIT_SCHEMES = ['KUM', 'SKP', 'SKP-IDI'] as const;
/** The scheme of a course that names none (the column's default). */
export const DEFAULT_CREDIT_SCHEME = KNOWN_CREDIT_SCHEMES[0];
/** The shape of a credit scheme's name. */
export const CREDIT_SCHEME = /^[A-Z][A-Z0-9-]{0,19}$/;
/** The shape in words, for error messages and help texts. */
export const CREDIT_SCHEME_RULE = 'a capital letter then up to 19 capital letters, digits or dashes';
/** Two examples, as help texts and messages give them: "KUM, SKP". */
export const CREDIT_SCHEME_EXAMPLES = KNOWN_CREDIT_SCHEMES.slice(0, 2).join(', ');
/** The shape's error message: "must be ..., e.g. KUM, SKP". */
export const CREDIT_SCHEME_MESSAGE = `must be ${CREDIT_SCHEME_RULE}, e.g. ${CREDIT_SCHEME_EXAMPLES}`;
