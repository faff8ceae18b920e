import type { PartnerEvidenceResponse } from '@lms/contracts';
import { type Db, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';
import { EVIDENCE_COLUMNS, EVIDENCE_FROM } from './reports.js';

// A partner's read of its members' credit evidence (GET /api/partner/evidence, through the
// gateway): the members holding an identity of that partner only, named by the partner's
// membershipId, ordered by it, with every course they are enrolled in and what was measured and
// issued there (the same columns as the body's report, domain/evidence/reports.ts). Three
// statements whatever the page size: the count, the page of members, their evidence.

type Member = PartnerEvidenceResponse['members'][number];
type CourseEvidence = Member['courses'][number];

interface EvidenceRow {
  userId: string;
  courseId: number;
  courseName: string;
  enrolledAt: string | Date;
  minutes: number;
  preTestScore: number | null;
  postTestScore: number | null;
  evaluationDone: boolean;
  certificateCode: string | null;
  certificateIssuedAt: string | Date | null;
  certificateExpiresAt: string | Date | null;
  credits: { scheme: string; amount: number; reference: string | null }[];
}

const iso = (v: string | Date) => new Date(v).toISOString();
const isoOrNull = (v: string | Date | null) => (v === null ? null : iso(v));

export async function partnerMemberEvidence(
  db: Db,
  issuer: string,
  query: { page: number; limit: number; membershipId?: string },
): Promise<{ members: Member[]; total: number }> {
  const only = query.membershipId === undefined ? sql`` : sql` and i.membership_id = ${query.membershipId}`;
  const [counted, members] = await Promise.all([
    typedRows<{ n: number }>(db, sql`select count(*)::int as n from identities i where i.issuer = ${issuer}${only}`),
    typedRows<{ membershipId: string; userId: string; name: string }>(
      db,
      sql`select i.membership_id as "membershipId", i.user_id as "userId", u.name
        from identities i join users u on u.id = i.user_id
        where i.issuer = ${issuer}${only}
        order by i.membership_id, i.user_id
        limit ${query.limit} offset ${(query.page - 1) * query.limit}`,
    ),
  ]);
  const total = Number(counted[0]?.n ?? 0);
  if (members.length === 0) return { members: [], total };
  const ids = sql.join(
    members.map((m) => sql`${m.userId}`),
    sql`, `,
  );
  const rows = await typedRows<EvidenceRow>(
    db,
    sql`select e.user_id as "userId", e.course_id as "courseId", co.name as "courseName", ${EVIDENCE_COLUMNS}
      from ${EVIDENCE_FROM} join courses co on co.id = e.course_id
      where e.user_id in (${ids}) order by e.user_id, e.course_id`,
  );
  const byUser = new Map<string, CourseEvidence[]>();
  for (const r of rows) {
    const list = byUser.get(r.userId) ?? [];
    list.push({
      courseId: r.courseId,
      courseName: r.courseName,
      enrolledAt: iso(r.enrolledAt),
      minutes: r.minutes,
      attendancePercent: null,
      preTestScore: r.preTestScore,
      postTestScore: r.postTestScore,
      evaluationDone: r.evaluationDone,
      certificateCode: r.certificateCode,
      certificateIssuedAt: isoOrNull(r.certificateIssuedAt),
      certificateExpiresAt: isoOrNull(r.certificateExpiresAt),
      credits: r.credits.map((c) => ({ scheme: c.scheme, amount: c.amount, accreditationReference: c.reference })),
    });
    byUser.set(r.userId, list);
  }
  return {
    total,
    members: members.map((m) => ({ membershipId: m.membershipId, name: m.name, courses: byUser.get(m.userId) ?? [] })),
  };
}
