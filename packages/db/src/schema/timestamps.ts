import { timestamp } from 'drizzle-orm/pg-core';

/** created_at / updated_at, both timestamptz, set by the database on insert. */
export const timestamps = {
  createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true, mode: 'date' })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date()),
};

export const tstz = () => timestamp({ withTimezone: true, mode: 'date' });
