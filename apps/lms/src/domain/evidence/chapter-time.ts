import { type Db, inTransaction, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';
import { ConflictError, NotFoundError } from '../../errors.js';
import { courseRequirements, estimatedMinutes } from './requirements.js';

// A learner's active time on a chapter (docs/architecture.md, "Time on a chapter"): measured by the
// server from the chapter page's heartbeats, never a total the client sends. Each beat credits the
// time since the learner's previous beat on the chapter, at most BEAT_CAP_SECONDS, and nothing when
// that beat was less than BEAT_MIN_INTERVAL_SECONDS ago (it is counted, not credited); the first
// beat credits nothing and starts the clock. A course whose credit requires a share of each
// chapter's expected minutes (courseRequirements().minMinutesShare) refuses a chapter's completion
// until that share is spent on it (./chapters.ts in domain/learning reads requiredSeconds).

/** The most one beat credits: a page hidden or closed for an hour gains a minute at most. */
export const BEAT_CAP_SECONDS = 60;
/** A beat sooner than this after the previous one is counted but credits nothing. */
export const BEAT_MIN_INTERVAL_SECONDS = 10;

/** A chapter's expected minutes: its author's, or its reading time (videos carry no duration to add). */
export function chapterExpectedMinutes(chapter: { expectedMinutes: number | null; content: string }): number {
  return chapter.expectedMinutes ?? estimatedMinutes(chapter.content);
}

/** Seconds a learner must spend on a chapter before completing it (null: the course requires none). */
export function requiredSeconds(minMinutesShare: number | null, expectedMinutes: number): number | null {
  return minMinutesShare === null ? null : Math.ceil((minMinutesShare * expectedMinutes * 60) / 100);
}

/** "3 min 20 s", "45 s", "2 min": a wait as the API's messages say it. */
export function formatWait(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  if (m === 0) return `${s} s`;
  return s === 0 ? `${m} min` : `${m} min ${s} s`;
}

/** 409: the chapter's completion waits for more active time on it (the course's credit requires it). */
export class TimeNotMetError extends ConflictError {
  constructor(readonly remainingSeconds: number) {
    super(
      `Spend more time on this chapter before marking it done: ${formatWait(remainingSeconds)} more ` +
        "(the course's credit requires a share of its expected minutes, measured while the chapter page is open)",
    );
  }
}

export interface ChapterTime {
  /** The chapter's expected minutes (its author's, or estimated from its text). */
  expectedMinutes: number;
  activeSeconds: number;
  /** What the course requires before completion, or null: nothing. */
  requiredSeconds: number | null;
  /** Seconds still to spend (0 when nothing is required or it is reached). */
  remainingSeconds: number;
}

const timeOf = (expectedMinutes: number, activeSeconds: number, required: number | null): ChapterTime => ({
  expectedMinutes,
  activeSeconds,
  requiredSeconds: required,
  remainingSeconds: required === null ? 0 : Math.max(0, required - activeSeconds),
});

/** The learner's active seconds on a chapter so far (0: no beat yet). */
export async function activeSeconds(db: Db, userId: string, chapterId: number): Promise<number> {
  const [row] = await typedRows<{ s: number }>(
    db,
    sql`select active_seconds as s from chapter_time where user_id = ${userId} and chapter_id = ${chapterId}`,
  );
  return row?.s ?? 0;
}

/** Where a learner stands on a chapter's time, for its page (the caller has opened the chapter). */
export async function chapterTimeFor(
  db: Db,
  userId: string,
  chapter: { id: number; courseId: number; expectedMinutes: number },
  at: Date,
): Promise<ChapterTime> {
  const [req, active] = await Promise.all([courseRequirements(db, chapter.courseId, at), activeSeconds(db, userId, chapter.id)]);
  return timeOf(chapter.expectedMinutes, active, requiredSeconds(req.minMinutesShare, chapter.expectedMinutes));
}

/**
 * Credits one heartbeat (the caller has checked that the learner may open the chapter): one upsert
 * of chapter_time. When the course requires a share of the chapter's minutes and it is reached, an
 * evidence_log 'chapter_time' entry is written, once per learner and chapter: the upsert's row lock
 * holds a concurrent beat of the same learner and chapter until this transaction ends, so the
 * second beat's check sees the first one's entry.
 */
export async function creditHeartbeat(
  db: Db,
  userId: string,
  chapter: { id: number; courseId: number; expectedMinutes: number },
  at: Date,
  sessionTokenHash: string | null,
): Promise<ChapterTime> {
  const req = await courseRequirements(db, chapter.courseId, at);
  const required = requiredSeconds(req.minMinutesShare, chapter.expectedMinutes);
  const beat = async (tx: Db): Promise<number> => {
    // FOR KEY SHARE: a chapter deleted meanwhile gives no row (404), never a foreign-key failure.
    const [row] = await typedRows<{ activeSeconds: number }>(
      tx,
      sql`
      with chapter as (select id, course_id from chapters where id = ${chapter.id} for key share)
      insert into chapter_time as t (user_id, chapter_id, course_id, active_seconds, beats, first_beat_at, last_beat_at)
      select ${userId}, id, course_id, 0, 1, ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz from chapter
      on conflict (user_id, chapter_id) do update set
        active_seconds = t.active_seconds + case
          when excluded.last_beat_at < t.last_beat_at + make_interval(secs => ${BEAT_MIN_INTERVAL_SECONDS}) then 0
          else least(floor(extract(epoch from excluded.last_beat_at - t.last_beat_at)), ${BEAT_CAP_SECONDS})::int end,
        beats = t.beats + 1,
        last_beat_at = greatest(t.last_beat_at, excluded.last_beat_at)
      returning active_seconds as "activeSeconds"`,
    );
    if (!row) throw new NotFoundError('Chapter not found');
    return row.activeSeconds;
  };
  if (required === null) return timeOf(chapter.expectedMinutes, await beat(db), null);
  const active = await inTransaction(db, async (tx) => {
    const active = await beat(tx);
    if (active >= required) {
      await tx.execute(sql`
        insert into evidence_log (user_id, course_id, kind, detail, session_id, at)
        select ${userId}, ${chapter.courseId}, 'chapter_time',
          jsonb_build_object('chapterId', ${chapter.id}::int, 'activeSeconds', ${active}::int, 'requiredSeconds', ${required}::int),
          ${sessionTokenHash}, ${at.toISOString()}::timestamptz
        where not exists (select 1 from evidence_log where user_id = ${userId} and course_id = ${chapter.courseId}
          and kind = 'chapter_time' and detail->>'chapterId' = ${String(chapter.id)})`);
    }
    return active;
  });
  return timeOf(chapter.expectedMinutes, active, required);
}
