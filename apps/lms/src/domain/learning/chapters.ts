import { type Db, inTransaction } from '@lms/db';
import { enqueuePartnerEvent } from '../partner-events/enqueue.js';
import { sql } from 'drizzle-orm';
import { NotFoundError } from '../../errors.js';
import { recordChapterCompletion } from './chapter-completions.js';
import { loadCourseProgress } from '../rules/unlock.js';
import { isEnrolled, lockedError, NotEnrolledError } from './access.js';
import { issueCertificateIfEarned } from './certificates.js';
import {
  activeSeconds,
  type ChapterTime,
  chapterExpectedMinutes,
  creditHeartbeat,
  requiredSeconds,
  TimeNotMetError,
} from '../evidence/chapter-time.js';
import { courseRequirements } from '../evidence/requirements.js';
import type { Receipts } from '../../notifications/receipts.js';

export interface ChapterView {
  id: number;
  courseId: number;
  courseName: string;
  moduleId: number;
  moduleName: string;
  name: string;
  content: string;
  /** Minutes a learner is expected to spend on it: its author's, or estimated from its text. */
  expectedMinutes: number;
  completed: boolean;
  /** The chapter's quiz, if it has one (to take after reading). */
  quizId: number | null;
  /** The next chapter in course order, if any (it may still be locked). */
  nextChapterId: number | null;
}

/**
 * A chapter for a learner: 404 when unknown, 403 when not enrolled in its course or when the
 * unlock rule keeps it locked (saying what opens it).
 */
export async function openChapter(db: Db, userId: string, chapterId: number): Promise<ChapterView> {
  const chapter = await findChapterRow(db, chapterId);
  if (!chapter) throw new NotFoundError('Chapter not found');
  if (!(await isEnrolled(db, userId, chapter.courseId))) throw new NotEnrolledError();
  const progress = await loadCourseProgress(db, userId, chapter.courseId);
  // biome-ignore lint/style/noNonNullAssertion: the progress of the chapter's own course has a state for each of its chapters.
  const state = progress.state.chapter.get(chapter.id)!;
  if (!state.unlocked) throw lockedError('chapter', progress);
  const order = progress.tree.modules.flatMap((m) => m.chapters.map((c) => c.id));
  return {
    ...chapter,
    completed: state.completed,
    quizId: progress.tree.chapterQuiz.get(chapter.id) ?? null,
    nextChapterId: order[order.indexOf(chapter.id) + 1] ?? null,
  };
}

/**
 * A chapter with its course and module names, whoever asks (null: no such chapter). Callers
 * decide who may read it: openChapter for learners, the managers' read-only pages through the
 * content-access rule (domain/learning/course-path.ts, pathRoleOf).
 */
export async function findChapterRow(
  db: Db,
  chapterId: number,
): Promise<Omit<ChapterView, 'completed' | 'quizId' | 'nextChapterId'> | null> {
  const { rows } = await db.execute(sql`
    select ch.id, ch.course_id as "courseId", c.name as "courseName", ch.module_id as "moduleId", m.name as "moduleName",
      ch.name, ch.content, ch.expected_minutes as "expectedMinutes"
    from chapters ch join courses c on c.id = ch.course_id join modules m on m.id = ch.module_id
    where ch.id = ${chapterId}`);
  const row = rows[0] as
    | (Omit<ChapterView, 'completed' | 'quizId' | 'nextChapterId' | 'expectedMinutes'> & { expectedMinutes: number | null })
    | undefined;
  return row ? { ...row, expectedMinutes: chapterExpectedMinutes(row) } : null;
}

/** One heartbeat of the learner's chapter page (same refusals as reading the chapter): docs/architecture.md, "Time on a chapter". */
export async function beatChapter(
  db: Db,
  userId: string,
  chapterId: number,
  at: Date,
  sessionTokenHash: string | null,
): Promise<ChapterTime> {
  const chapter = await openChapter(db, userId, chapterId);
  return creditHeartbeat(db, userId, chapter, at, sessionTokenHash);
}

export interface CompletionResult {
  chapter: ChapterView;
  created: boolean;
  /** The verification code of a certificate this completion earned, if it did. */
  certificateCode: string | null;
}

/**
 * Marks a chapter complete (same refusals as reading it); again is a no-op. Then checks the
 * certificate. When the course's credit requires a share of each chapter's expected minutes, a
 * first completion before that share is spent on the chapter is a 409 saying how long remains
 * (TimeNotMetError), and a recorded one leaves an evidence_log 'chapter_completed' entry. A course
 * that requires nothing costs one read more (its requirements) and writes nothing more.
 */
export async function completeChapter(
  db: Db,
  receipts: Receipts,
  userId: string,
  chapterId: number,
  at: Date,
  sessionTokenHash: string | null = null,
): Promise<CompletionResult> {
  const chapter = await openChapter(db, userId, chapterId);
  const required = chapter.completed
    ? null
    : requiredSeconds((await courseRequirements(db, chapter.courseId, at)).minMinutesShare, chapter.expectedMinutes);
  const active = required === null ? 0 : await activeSeconds(db, userId, chapterId);
  if (required !== null && active < required) throw new TimeNotMetError(required - active);
  // The completion, the course completion it may make, the certificate it may earn and their
  // partner events commit together.
  const { outcome, certificateCode } = await inTransaction(db, async (tx) => {
    const outcome = await recordChapterCompletion(tx, userId, chapterId, at);
    if (outcome === 'unknown-chapter') throw new NotFoundError('Chapter not found');
    if (outcome === 'recorded' && required !== null) {
      await tx.execute(sql`
        insert into evidence_log (user_id, course_id, kind, detail, session_id, at)
        values (${userId}, ${chapter.courseId}, 'chapter_completed',
          jsonb_build_object('chapterId', ${chapterId}::int, 'activeSeconds', ${active}::int, 'requiredSeconds', ${required}::int),
          ${sessionTokenHash}, ${at.toISOString()}::timestamptz)`);
    }
    if (outcome === 'recorded' && (await allChaptersDone(tx, userId, chapter.courseId))) {
      await enqueuePartnerEvent(tx, receipts.deliveries, {
        type: 'enrollment.completed',
        userId,
        occurredAt: at,
        courseId: chapter.courseId,
        data: { completedAt: at.toISOString() },
      });
    }
    return { outcome, certificateCode: await issueCertificateIfEarned(tx, receipts, userId, chapter.courseId, at) };
  });
  return { chapter: { ...chapter, completed: true }, created: outcome === 'recorded', certificateCode };
}

/** Whether the learner has completed every chapter of the course (the enrolment's maintained counter). */
async function allChaptersDone(tx: Db, userId: string, courseId: number): Promise<boolean> {
  const { rows } = await tx.execute(sql`
    select e.completed_chapters >= (select count(*) from chapters ch where ch.course_id = e.course_id) as done
    from enrollments e where e.user_id = ${userId} and e.course_id = ${courseId}`);
  return (rows[0] as { done: boolean } | undefined)?.done === true;
}
