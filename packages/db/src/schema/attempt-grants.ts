import { relations, sql } from 'drizzle-orm';
import { check, index, integer, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { quizzes } from './catalog.js';
import { users } from './people.js';
import { tstz } from './timestamps.js';

/**
 * Extra attempts at one quiz for one learner, granted by a person who manages the course (its
 * owner teacher, an admin of its institution, a super_admin), with the reason. A learner's
 * allowance is the quiz's maxAttempts plus the sum of their grants; rows are never changed, so
 * the table is the record of who gave how many, when and why.
 */
export const quizAttemptGrants = pgTable(
  'quiz_attempt_grants',
  {
    id: serial().primaryKey(),
    quizId: integer()
      .notNull()
      .references(() => quizzes.id, { onDelete: 'cascade' }),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    extraAttempts: integer().notNull(),
    reason: text().notNull(),
    /** Who granted them (null once that account is deleted: the row stays as the record). */
    grantedBy: text().references(() => users.id, { onDelete: 'set null' }),
    grantedAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    index('quiz_attempt_grants_user_quiz_idx').on(t.userId, t.quizId),
    check('quiz_attempt_grants_extra_range', sql`${t.extraAttempts} between 1 and 20`),
    check('quiz_attempt_grants_reason_length', sql`char_length(${t.reason}) between 1 and 500`),
  ],
);

export const quizAttemptGrantsRelations = relations(quizAttemptGrants, ({ one }) => ({
  quiz: one(quizzes, { fields: [quizAttemptGrants.quizId], references: [quizzes.id] }),
  user: one(users, { fields: [quizAttemptGrants.userId], references: [users.id] }),
}));
