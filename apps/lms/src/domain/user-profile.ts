import { type Db, type UserRole, users } from '@lms/db';
import { eq } from 'drizzle-orm';

/** What the pages show of a person: name, contact, tier and role. */
export interface UserProfile {
  name: string;
  email: string;
  tier: string | null;
  membershipId: string | null;
  role: UserRole;
}

export async function findUserProfile(db: Db, userId: string): Promise<UserProfile | null> {
  const [user] = await db
    .select({ name: users.name, email: users.email, tier: users.tier, membershipId: users.membershipId, role: users.role })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  return user ?? null;
}
