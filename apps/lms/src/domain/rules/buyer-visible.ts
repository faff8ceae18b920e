import { courses } from '@lms/db';
import { type AnyColumn, type SQL, sql } from 'drizzle-orm';

/**
 * Buyer-visible, the spec's derived state: published AND an event code. The one definition of the
 * rule, in the two forms the code needs: a SQL condition (over `courses` or an alias of it) and a
 * test of a loaded row. Who sees what beyond it is viewer.ts's business.
 */
export function buyerVisibleWhere(table: { isPublished: AnyColumn; eventCode: AnyColumn } = courses): SQL {
  // Written as the partial index courses_buyer_visible_idx states it, with no parameter: in a
  // prepared statement's generic plan, `is_published = $1` could not use that index.
  return sql`(${table.isPublished} and ${table.eventCode} is not null)`;
}

/** Buyer-visible courses, as a condition over `courses`: what the catalog and the learning paths share. */
export const buyerVisible: SQL = buyerVisibleWhere(courses);

export function isBuyerVisible(course: { isPublished: boolean; eventCode: string | null }): boolean {
  return course.isPublished && course.eventCode !== null;
}
