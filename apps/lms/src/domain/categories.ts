import { categories, type Db } from '@lms/db';
import { asc, sql } from 'drizzle-orm';

/** Every category, by name, for the catalog's filter. */
export async function listCategories(db: Db): Promise<{ id: number; code: string; name: string }[]> {
  return db
    .select({ id: categories.id, code: categories.code, name: categories.name })
    .from(categories)
    .orderBy(asc(sql`lower(${categories.name})`), asc(categories.id));
}
