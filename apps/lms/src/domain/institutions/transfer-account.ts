import { type Db, institutions, type UserRole, users } from '@lms/db';
import { asc, eq } from 'drizzle-orm';
import { ForbiddenError, NotFoundError } from '../../errors.js';

// An institution's settings that its admins keep themselves (docs/operations.md, "Transfer
// accounts"): the bank account its learners transfer to. The same rules for `lms-admin
// institution set-transfer-account` and the institution settings page
// (pages/institution/index.ts): at most so many characters, no control character.

/** Longest bank name, account number and holder taken (what a transfer form holds, with room). */
export const TRANSFER_ACCOUNT_MAX = { bank: 200, number: 100, holder: 200 } as const;

export type TransferAccountField = keyof typeof TRANSFER_ACCOUNT_MAX;
export type TransferAccountProblem = 'missing' | 'tooLong' | 'control';

export interface TransferAccount {
  bank: string;
  number: string;
  holder: string;
}

export interface InstitutionSettings {
  id: number;
  name: string;
  account: TransferAccount | null;
}

/** What is wrong with one field's value (already trimmed), or null. */
export function transferAccountProblem(field: TransferAccountField, value: string): TransferAccountProblem | null {
  if (value === '') return 'missing';
  if (value.length > TRANSFER_ACCOUNT_MAX[field]) return 'tooLong';
  // A control character (NUL included) would end up on a page and in a bank form: refuse it.
  if (/\p{Cc}/u.test(value)) return 'control';
  return null;
}

/** Each field's problem; empty when the account may be saved. */
export function transferAccountProblems(account: TransferAccount): Partial<Record<TransferAccountField, TransferAccountProblem>> {
  const problems: Partial<Record<TransferAccountField, TransferAccountProblem>> = {};
  for (const field of Object.keys(TRANSFER_ACCOUNT_MAX) as TransferAccountField[]) {
    const problem = transferAccountProblem(field, account[field]);
    if (problem) problems[field] = problem;
  }
  return problems;
}

/** The person as the rule sees them: their role and institution (null: none). */
export interface InstitutionKeeper {
  role: UserRole;
  institutionId: number | null;
}

/** Who keeps an institution's settings: an admin of that institution, or a super_admin (any). */
export function keepsInstitution(person: InstitutionKeeper, institutionId: number): boolean {
  if (person.role === 'super_admin') return true;
  return person.role === 'admin' && person.institutionId !== null && person.institutionId === institutionId;
}

/** The person's role and institution, read fresh (a role changed since sign-in counts at once). */
export async function keeperOf(db: Db, userId: string): Promise<InstitutionKeeper | null> {
  const [row] = await db.select({ role: users.role, institutionId: users.institutionId }).from(users).where(eq(users.id, userId)).limit(1);
  return row ?? null;
}

/** The settings of an institution the person keeps: a 404 for none, a 403 for one they do not keep. */
export async function readInstitutionSettings(db: Db, person: InstitutionKeeper, institutionId: number): Promise<InstitutionSettings> {
  const [row] = await db.select().from(institutions).where(eq(institutions.id, institutionId)).limit(1);
  if (!row) throw new NotFoundError('Institution not found');
  if (!keepsInstitution(person, institutionId))
    throw new ForbiddenError('Only an admin of this institution or a super_admin may change its settings');
  const account =
    row.transferBank !== null && row.transferAccountNumber !== null && row.transferAccountHolder !== null
      ? { bank: row.transferBank, number: row.transferAccountNumber, holder: row.transferAccountHolder }
      : null;
  return { id: row.id, name: row.name, account };
}

/** Every institution, by id (for a super_admin's choice). */
export async function listInstitutions(db: Db): Promise<{ id: number; name: string; hasAccount: boolean }[]> {
  const rows = await db
    .select({ id: institutions.id, name: institutions.name, number: institutions.transferAccountNumber })
    .from(institutions)
    .orderBy(asc(institutions.id));
  return rows.map((r) => ({ id: r.id, name: r.name, hasAccount: r.number !== null }));
}

/**
 * Sets (or, with null, removes) the account; the caller checked the values and who may. Returns
 * the institution's name, or null when there is no such institution.
 */
export async function setTransferAccount(
  db: Db,
  institutionId: number,
  account: TransferAccount | null,
  now: Date,
): Promise<string | null> {
  const [row] = await db
    .update(institutions)
    .set({
      transferBank: account?.bank ?? null,
      transferAccountNumber: account?.number ?? null,
      transferAccountHolder: account?.holder ?? null,
      updatedAt: now,
    })
    .where(eq(institutions.id, institutionId))
    .returning({ name: institutions.name });
  return row?.name ?? null;
}
