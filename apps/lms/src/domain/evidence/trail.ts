import { type Db, evaluationCompletions, evidenceLog, type EvidenceKind, inTransaction, typedRows, type UserRole } from '@lms/db';
import { sql } from 'drizzle-orm';
import { ForbiddenError, NotFoundError } from '../../errors.js';
import { managesCourseColumn } from '../rules/course-managers.js';

// A learner's evidence trail in a course (evidence_log, DESIGN 5g "Audit"): when each item was met
// and from which session, read by an admin of the course's institution or a super_admin (not the
// teacher: the trail is what a body's auditor is shown). A correction (the evaluation marked done,
// minutes added) is an entry of its own with its reason and its author, never an update of an
// earlier entry; marking the evaluation done also records the completion.

export interface TrailEntry {
  id: number;
  kind: EvidenceKind;
  detail: Record<string, unknown>;
  /** The session's hash, shortened to 12 characters (enough to tell sessions apart), or null. */
  session: string | null;
  actorId: string | null;
  actorName: string | null;
  reason: string | null;
  at: Date;
}

export const MAX_CORRECTION_REASON = 500;
export const MAX_CORRECTION_MINUTES = 600;

/** Admin of the course's institution or super_admin: a 404 for no such course, a 403 for anyone else. */
export async function assertAuditsCourse(db: Db, person: { userId: string; role: UserRole }, courseId: number): Promise<void> {
  const institutional = person.role === 'super_admin' || person.role === 'admin';
  const [row] = await typedRows<{ may: boolean }>(
    db,
    sql`select ${institutional ? managesCourseColumn(person) : sql`false`} as may from courses where id = ${courseId}`,
  );
  if (!row) throw new NotFoundError('Course not found');
  if (!row.may) throw new ForbiddenError("Only an admin of the course's institution or a super_admin may read or correct the evidence");
}

/** Whether the person is or was enrolled in the course (the trail is per enrolment). */
async function enrolled(db: Db, userId: string, courseId: number): Promise<boolean> {
  const rows = await typedRows<{ one: number }>(
    db,
    sql`select 1 as one from enrollments where user_id = ${userId} and course_id = ${courseId}`,
  );
  return rows.length > 0;
}

/** The trail, oldest first (at most the last 2,000 entries). */
export async function evidenceTrail(db: Db, userId: string, courseId: number): Promise<TrailEntry[]> {
  if (!(await enrolled(db, userId, courseId))) throw new NotFoundError('Learner not found in this course');
  const rows = await typedRows<Omit<TrailEntry, 'at'> & { at: string | Date }>(
    db,
    sql`select * from (select l.id::int as id, l.kind, l.detail, left(l.session_id, 12) as session, l.actor_id as "actorId",
          a.name as "actorName", l.reason, l.at
        from evidence_log l left join users a on a.id = l.actor_id
        where l.user_id = ${userId} and l.course_id = ${courseId} order by l.at desc, l.id desc limit 2000) t order by t.at, t.id`,
  );
  return rows.map((r) => ({ ...r, at: new Date(r.at) }));
}

export interface Correction {
  evaluationDone: boolean;
  /** Minutes added to the measured time (0: none). */
  addMinutes: number;
  reason: string;
}

/** Records an admin's correction (the caller checked assertAuditsCourse): its own entry, and the evaluation's completion if marked. */
export async function correctEvidence(
  db: Db,
  actorId: string,
  userId: string,
  courseId: number,
  c: Correction,
  at: Date,
): Promise<TrailEntry> {
  if (!(await enrolled(db, userId, courseId))) throw new NotFoundError('Learner not found in this course');
  return inTransaction(db, async (tx) => {
    if (c.evaluationDone) await tx.insert(evaluationCompletions).values({ userId, courseId, completedAt: at }).onConflictDoNothing();
    const detail = { ...(c.evaluationDone ? { evaluationDone: true } : {}), ...(c.addMinutes > 0 ? { addMinutes: c.addMinutes } : {}) };
    const [row] = await tx
      .insert(evidenceLog)
      .values({ userId, courseId, kind: 'correction', detail, actorId, reason: c.reason, at })
      .returning();
    if (!row) throw new Error('no row');
    return { id: row.id, kind: row.kind, detail: row.detail, session: null, actorId, actorName: null, reason: row.reason, at: row.at };
  });
}
