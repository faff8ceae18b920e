import { USER_ROLES } from '@lms/contracts/lists';
import { pgEnum } from 'drizzle-orm/pg-core';

/** A person's role: the values are USER_ROLES (`@lms/contracts/lists`), the one list of them. */
export const userRole = pgEnum('user_role', USER_ROLES);
export type { UserRole } from '@lms/contracts/lists';
/** Pricing tier, set from the SSO token's `sub` (member → anggota). */
export const userTier = pgEnum('user_tier', ['anggota', 'umum', 'mahasiswa']);
export const courseType = pgEnum('course_type', ['self_paced', 'scheduled']);
export const enrollmentType = pgEnum('enrollment_type', ['code', 'open', 'approval']);
/** Where a quiz hangs: on a chapter, on a module, or the course's final exam. */
export const quizScope = pgEnum('quiz_scope', ['chapter', 'module', 'final']);
/** A request to join an `approval` course, decided by the course's teacher (or an admin). */
export const enrollmentRequestStatus = pgEnum('enrollment_request_status', ['pending', 'approved', 'rejected']);
/**
 * A purchase is pending until its payment is confirmed (paid), or it is closed unpaid: cancelled by
 * its buyer, rejected by an admin (with a reason), expired after PURCHASE_PENDING_HOURS.
 */
export const purchaseStatus = pgEnum('purchase_status', ['pending', 'paid', 'refunded', 'cancelled', 'rejected', 'expired']);
/** How an SSO identity came to be: the partner's first token ('sso') or an operator's link ('operator'). */
export const identityOrigin = pgEnum('identity_origin', ['sso', 'operator']);
