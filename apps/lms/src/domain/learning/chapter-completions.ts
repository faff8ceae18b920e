import type { Db } from '@lms/db';
import { sql } from 'drizzle-orm';

export type ChapterCompletionResult = 'recorded' | 'already-completed' | 'unknown-chapter';

/**
 * Records that a user completed a chapter: the one write path of chapter_completions (the
 * learner's chapter route through ./chapters.ts, which checks enrolment and the unlock rule first).
 *
 * The completion takes its course from the chapter itself (never from the caller), so it can only
 * count toward the chapter's own course; a second completion of the same chapter is a no-op
 * (primary key (user_id, chapter_id)). The per-enrollment counter `enrollments.completed_chapters`
 * is kept by the trigger of migration 0002_counters, serialised per (user, course) with the
 * enrollment trigger by an advisory lock; the triggers of migration 0003_progress_aggregates then
 * move the course's completion figures. That reasoning holds under READ COMMITTED (the default):
 * inside a REPEATABLE READ or SERIALIZABLE transaction, whose older snapshot could miss an
 * enrollment committed while the lock was awaited, the database refuses the write (SQLSTATE 0A000).
 */
export async function recordChapterCompletion(db: Db, userId: string, chapterId: number, at: Date): Promise<ChapterCompletionResult> {
  // FOR KEY SHARE: a chapter deleted concurrently is either waited for and then skipped (no row:
  // 'unknown-chapter') or kept until we commit, so the foreign-key check of the insert cannot fail
  // (a caught failure would leave a caller's transaction aborted).
  const { rows } = await db.execute(sql`
    WITH chapter AS (
      SELECT id, course_id FROM chapters WHERE id = ${chapterId} FOR KEY SHARE
    ), inserted AS (
      INSERT INTO chapter_completions (user_id, chapter_id, course_id, completed_at)
      SELECT ${userId}, id, course_id, ${at.toISOString()}::timestamptz FROM chapter
      ON CONFLICT (user_id, chapter_id) DO NOTHING
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM chapter)::int AS chapters, (SELECT count(*) FROM inserted)::int AS inserted
  `);
  const row = rows[0] as { chapters: number; inserted: number };
  if (row.chapters === 0) return 'unknown-chapter';
  return row.inserted === 1 ? 'recorded' : 'already-completed';
}
