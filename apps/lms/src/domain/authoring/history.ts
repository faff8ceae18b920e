import { createHash } from 'node:crypto';
import type { AuthoringEvent } from '@lms/contracts';
import { type authoringEvents, type Db, type RawSelect, typedRows, type users } from '@lms/db';
import { sql } from 'drizzle-orm';
import { type AuthoringContext, findAuthoredCourse } from './authors.js';

/** One changed field: its path in the course document, and its values before and after (absent for a creation or a deletion). */
export interface Change {
  path: string;
  from?: unknown;
  to?: unknown;
}

/** Texts longer than this are recorded as their length and SHA-256, not in full (chapter content, descriptions). */
const LONG_TEXT = 200;

/** A value as the history keeps it: long texts by their length and hash. */
export function recorded(value: unknown): unknown {
  if (typeof value === 'string' && value.length > LONG_TEXT) {
    return { length: value.length, sha256: createHash('sha256').update(value).digest('hex') };
  }
  return value;
}

/**
 * The fields of `after` whose value differs from `before` (compared as JSON), as changes under
 * `prefix`. Fields absent from `after` are not compared: a patch names what it changes.
 */
export function changedFields(prefix: string, before: Record<string, unknown>, after: Record<string, unknown>): Change[] {
  const changes: Change[] = [];
  for (const [field, value] of Object.entries(after)) {
    if (value === undefined) continue;
    if (JSON.stringify(before[field] ?? null) === JSON.stringify(value ?? null)) continue;
    changes.push({ path: prefix ? `${prefix}.${field}` : field, from: recorded(before[field] ?? null), to: recorded(value) });
  }
  return changes;
}

/**
 * Records one authoring write in the course's history, in the write's own transaction (a change
 * and its record commit together). A write that changed nothing records nothing.
 */
export async function recordChange(
  tx: Db,
  ctx: AuthoringContext,
  event: { courseId: number; action: string; targetId?: number | null; changes: Change[] },
): Promise<void> {
  if (event.changes.length === 0) return;
  const a = ctx.author;
  await tx.execute(sql`
    insert into authoring_events (course_id, at, credential, user_id, user_role, partner_issuer, partner_subject, token_id,
      action, target_id, changes, request_id)
    values (${event.courseId}, ${ctx.now.toISOString()}::timestamptz, ${a.kind === 'session' ? 'session' : 'partner-token'},
      ${a.kind === 'session' ? a.userId : null}, ${a.kind === 'session' ? a.role : null},
      ${a.kind === 'partner' ? a.issuer : null}, ${a.kind === 'partner' ? a.subject : null}, ${a.kind === 'partner' ? a.tokenId : null},
      ${event.action}, ${event.targetId ?? null}, ${JSON.stringify(event.changes)}::jsonb, ${ctx.requestId})`);
}

/**
 * A course's history, newest first, a page at a time (`before`: an event id from the previous
 * page). Readable by those who may author the course; the person's name is today's.
 */
export async function readHistory(
  db: Db,
  ctx: AuthoringContext,
  courseId: number,
  page: { before?: number; limit: number },
): Promise<{ events: AuthoringEvent[]; nextBefore: number | null }> {
  await findAuthoredCourse(db, ctx.author, { course: courseId });
  // Raw: keyset pagination with an optional bound, the author's name of today by a left join.
  const rows = await typedRows<
    Pick<
      RawSelect<typeof authoringEvents>,
      | 'id'
      | 'at'
      | 'action'
      | 'targetId'
      | 'credential'
      | 'userId'
      | 'userRole'
      | 'partnerIssuer'
      | 'partnerSubject'
      | 'tokenId'
      | 'changes'
      | 'requestId'
    > & { userName: RawSelect<typeof users>['name'] | null }
  >(
    db,
    sql`
    select e.id, e.at, e.action, e.target_id as "targetId", e.credential, e.user_id as "userId", u.name as "userName",
      e.user_role as "userRole", e.partner_issuer as "partnerIssuer", e.partner_subject as "partnerSubject",
      e.token_id as "tokenId", e.changes, e.request_id as "requestId"
    from authoring_events e left join users u on u.id = e.user_id
    where e.course_id = ${courseId} ${page.before === undefined ? sql`` : sql`and e.id < ${page.before}`}
    order by e.id desc limit ${page.limit + 1}`,
  );
  const events = rows.slice(0, page.limit).map((r) => ({
    id: Number(r.id),
    at: new Date(r.at).toISOString(),
    action: r.action,
    targetId: r.targetId === null ? null : Number(r.targetId),
    credential: r.credential,
    actor: {
      userId: r.userId ?? null,
      name: r.userName ?? null,
      role: r.userRole ?? null,
      partnerIssuer: r.partnerIssuer ?? null,
      partnerSubject: r.partnerSubject ?? null,
      tokenId: r.tokenId ?? null,
    },
    changes: r.changes,
    requestId: r.requestId ?? null,
  }));
  const more = rows.length > page.limit;
  return { events, nextBefore: more && events.length > 0 ? events[events.length - 1].id : null };
}
