import { sql } from 'drizzle-orm';
import { bigserial, check, index, integer, jsonb, pgEnum, pgTable, text } from 'drizzle-orm/pg-core';
import { userRole } from './enums.js';
import { tstz } from './timestamps.js';

/** How an author reached the LMS: a person's session, or a partner's bearer JWT through the gateway. */
export const authoringCredential = pgEnum('authoring_credential', ['session', 'partner-token']);

/**
 * The history of a course's authoring: one row per write that changed something (who, through
 * which credential, when, what). Written in the transaction of the write, so a change and its
 * record commit together. No foreign keys: the history of a course outlives the people and the
 * partners named in it (their ids stay as they were).
 */
export const authoringEvents = pgTable(
  'authoring_events',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    courseId: integer().notNull(),
    at: tstz().notNull().defaultNow(),
    credential: authoringCredential().notNull(),
    /** The session's person (credential 'session'). */
    userId: text(),
    userRole: userRole(),
    /** The partner (credential 'partner-token'): its `iss`, the token's `sub` and `jti`. */
    partnerIssuer: text(),
    partnerSubject: text(),
    tokenId: text(),
    /** What was done, e.g. `chapter.update`, `course.publish`, `course.import`. */
    action: text().notNull(),
    /** The module, chapter or quiz written (null for the course itself). */
    targetId: integer(),
    /** What changed: `[{ path, from?, to? }]`; long texts as their length and SHA-256. */
    changes: jsonb().$type<unknown[]>().notNull(),
    /** The request's id (x-request-id), to find it in the logs. */
    requestId: text(),
  },
  (t) => [
    index('authoring_events_course_idx').on(t.courseId, t.id),
    check(
      'authoring_events_actor',
      sql`(${t.credential} = 'session' and ${t.userId} is not null) or (${t.credential} = 'partner-token' and ${t.partnerIssuer} is not null)`,
    ),
  ],
);
