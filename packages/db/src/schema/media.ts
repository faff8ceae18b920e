import { customType, index, integer, pgTable, serial, text, unique } from 'drizzle-orm/pg-core';
import { courses } from './catalog.js';
import { tstz } from './timestamps.js';

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

/**
 * Pictures uploaded through the course studio (a chapter's picture, the course's cover), kept in
 * the database so every LMS instance serves the same file (docs/architecture.md, "Media"). A
 * picture belongs to one course: only those who may author that course may use or delete it. Its
 * URL names its content's SHA-256, so the file behind a URL never changes and may be cached forever.
 */
export const coursePictures = pgTable(
  'course_pictures',
  {
    id: serial().primaryKey(),
    courseId: integer()
      .notNull()
      .references(() => courses.id, { onDelete: 'cascade' }),
    /** SHA-256 (hex) of `bytes`, as stored (after resizing): the picture's public name. */
    sha256: text().notNull(),
    /** image/png, image/jpeg, image/webp or image/gif: decided from the bytes, never from the name. */
    contentType: text().notNull(),
    bytes: bytea().notNull(),
    width: integer(),
    height: integer(),
    /** What the uploader called it (shown in the studio only). */
    originalName: text().notNull().default(''),
    uploadedBy: text(),
    createdAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    index('course_pictures_course_idx').on(t.courseId),
    unique('course_pictures_course_sha_key').on(t.courseId, t.sha256),
    index('course_pictures_sha_idx').on(t.sha256),
  ],
);
