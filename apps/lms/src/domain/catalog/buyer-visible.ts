import { courses } from '@lms/db';
import { type AnyColumn, and, eq, isNotNull, type SQL } from 'drizzle-orm';

/**
 * Buyer-visible, the spec's derived state: published AND an event code. The one definition of the
 * rule, in the two forms the code needs: a SQL condition (over `courses` or an alias of it) and a
 * test of a loaded row. Who sees what beyond it is viewer.ts's business.
 */
export function buyerVisibleWhere(table: { isPublished: AnyColumn; eventCode: AnyColumn } = courses): SQL {
  // biome-ignore lint/style/noNonNullAssertion: and() of two conditions is never undefined.
  return and(eq(table.isPublished, true), isNotNull(table.eventCode))!;
}

export function isBuyerVisible(course: { isPublished: boolean; eventCode: string | null }): boolean {
  return course.isPublished && course.eventCode !== null;
}
