import { type Db, type institutions as institutionsTable, type RawSelect, typedRows, type users } from '@lms/db';
import { sql } from 'drizzle-orm';

// What a partner may create courses for, as it reads it (GET /api/partner/teachers): the
// institutions an operator bound to it and their active teachers. Exactly whom assertMayCreateFor
// (./authors.ts) accepts for a partner: an institution bound to an active partner, a user of it
// with the role teacher who is active. Nothing of another partner's institutions, no student,
// admin or inactive teacher.

export interface PartnerTeachersPage {
  institutions: { id: number; name: string }[];
  teachers: { id: string; name: string; email: string; institutionId: number }[];
  total: number;
}

export async function partnerTeachers(
  db: Db,
  issuer: string,
  query: { institutionId?: number; page: number; limit: number },
): Promise<PartnerTeachersPage> {
  const only = query.institutionId === undefined ? sql`` : sql` and pi.institution_id = ${query.institutionId}`;
  const bound = sql`select pi.institution_id from partner_institutions pi join partners p on p.id = pi.partner_id
    where p.issuer = ${issuer} and p.is_active${only}`;
  // Raw: the bound institutions' subquery is shared by the three statements.
  const institutions = await typedRows<Pick<RawSelect<typeof institutionsTable>, 'id' | 'name'>>(
    db,
    sql`
    select i.id, i.name from institutions i where i.id in (${bound}) order by i.id`,
  );
  if (institutions.length === 0) return { institutions: [], teachers: [], total: 0 };
  const teachersOf = sql`from users u where u.role = 'teacher' and u.is_active and u.institution_id in (${bound})`;
  const counted = await typedRows<{ n: number }>(db, sql`select count(*)::int as n ${teachersOf}`);
  const teachers = await typedRows<Pick<RawSelect<typeof users>, 'id' | 'name' | 'email' | 'institutionId'>>(
    db,
    sql`
    select u.id, u.name, u.email, u.institution_id as "institutionId" ${teachersOf}
    order by u.institution_id, u.name, u.id
    limit ${query.limit} offset ${(query.page - 1) * query.limit}`,
  );
  return {
    institutions,
    teachers: teachers.map((t) => ({ ...t, institutionId: Number(t.institutionId) })),
    total: Number(counted[0]?.n ?? 0),
  };
}
