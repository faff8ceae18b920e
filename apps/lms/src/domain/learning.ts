import type { Db } from '@lms/db';
import { sql } from 'drizzle-orm';

export type ChapterCompletionResult = 'recorded' | 'already-completed' | 'unknown-chapter';

/**
 * Records that a user completed a chapter: the one write path for chapter completions.
 *
 * The completion takes its course from the chapter itself (never from the caller), so it can only
 * count toward the chapter's own course; a second completion of the same chapter is a no-op
 * (primary key (user_id, chapter_id)). The per-enrollment counter `enrollments.completed_chapters`
 * is kept by the trigger of migration 0002_counters, serialised per (user, course) with the
 * enrollment trigger by an advisory lock. That reasoning holds under READ COMMITTED (the
 * default): do not call this inside a REPEATABLE READ or SERIALIZABLE transaction, whose older
 * snapshot could miss an enrollment committed while the lock was awaited.
 */
export async function recordChapterCompletion(
  db: Db,
  userId: string,
  chapterId: number,
  at: Date,
): Promise<ChapterCompletionResult> {
  let rows: Record<string, unknown>[];
  try {
    ({ rows } = await db.execute(sql`
      WITH chapter AS (
        SELECT id, course_id FROM chapters WHERE id = ${chapterId}
      ), inserted AS (
        INSERT INTO chapter_completions (user_id, chapter_id, course_id, completed_at)
        SELECT ${userId}, id, course_id, ${at.toISOString()}::timestamptz FROM chapter
        ON CONFLICT (user_id, chapter_id) DO NOTHING
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM chapter)::int AS chapters, (SELECT count(*) FROM inserted)::int AS inserted
    `));
  } catch (err) {
    // The chapter was deleted between the read and the foreign-key check.
    if (pgErrorCode(err) === '23503' && pgConstraint(err) === 'chapter_completions_chapter_fk') return 'unknown-chapter';
    throw err;
  }
  const row = rows[0] as { chapters: number; inserted: number };
  if (row.chapters === 0) return 'unknown-chapter';
  return row.inserted === 1 ? 'recorded' : 'already-completed';
}

/** The PostgreSQL error code of an error or of its cause (Drizzle wraps driver errors). */
function pgErrorCode(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function pgConstraint(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const constraint = (e as { constraint?: unknown }).constraint;
    if (typeof constraint === 'string') return constraint;
  }
  return undefined;
}
