import { createHash } from 'node:crypto';
import { type coursePictures, type Db, inTransaction, type RawSelect, typedRows } from '@lms/db';
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { NotFoundError, UnprocessableError } from '../../errors.js';
import { MalformedPictureError, type PictureHeader, type PictureKind, readPictureHeader } from './picture-header.js';
import { type AuthoringContext, findAuthoredCourse, lockAuthoredCourse } from '../authoring/authors.js';
import { recordChange } from '../authoring/history.js';

// Pictures of a course (a chapter's picture, the cover), uploaded through the studio. What a file
// is, is decided by its first bytes, never by its name or the browser's Content-Type; only PNG,
// JPEG, WebP and GIF are kept, decoded and re-encoded by sharp (which also refuses a file that
// only starts like a picture), and made at most PICTURE_MAX_WIDTH wide for the catalog.
//
// Decoding is bounded before it starts (docs/authoring.md, "Media"): the file's structure is
// read without decoding (./picture-header.ts) and its pixels, over all the frames a decoder would
// paint, held to PICTURE_LIMITS; sharp's own reading of the header must say the same kind and stay
// within them. A 2.6 KB GIF of 38 frames of 1000 x 1000 cost 2-9 s of CPU before.

export const PICTURE_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' } as const;
export type { PictureKind };

/** Pictures wider than this are scaled down (the catalog and chapter pages never show them larger). */
export const PICTURE_MAX_WIDTH = 1600;

/** What a picture may hold; each refusal is a 422 naming the limit. */
export const PICTURE_LIMITS = {
  /** Pixels of one frame (width x height), any kind. */
  pixels: 40_000_000,
  /** Frames of a GIF. */
  gifFrames: 300,
  /** Pixels of a GIF over all its frames (frames x canvas): re-encoding a GIF costs about 0.1 s of CPU per million. */
  gifPixels: 8_000_000,
  /** Scans of a JPEG (a progressive file decodes the picture again with each). */
  jpegScans: 100,
} as const;

/** 422: not one of the picture kinds we keep (an SVG, an HTML page named .png, a PDF…). */
export class UnsupportedPictureError extends UnprocessableError {}

/** 422: a picture over one of PICTURE_LIMITS (`limit`), with what it holds. */
export class PictureTooLargeError extends UnprocessableError {
  constructor(
    readonly limit: keyof typeof PICTURE_LIMITS,
    readonly header: PictureHeader,
  ) {
    const { width, height, frames, scans } = header;
    const holds = limit === 'jpegScans' ? `${scans} scans` : `${frames} x ${width} x ${height} pixels (frames x width x height)`;
    super(`The picture holds ${holds}: the limit is ${PICTURE_LIMITS[limit]} (${limit})`);
  }
}

/** 422: a file name sent with a control character (NUL, a line break…), which no file of a person's has. */
export class PictureNameError extends UnprocessableError {}

/** Which of PICTURE_LIMITS a picture of this header is over, or null. */
export function pictureOverLimit(kind: PictureKind, h: PictureHeader): keyof typeof PICTURE_LIMITS | null {
  if (h.width * h.height > PICTURE_LIMITS.pixels) return 'pixels';
  if (kind === 'gif' && h.frames > PICTURE_LIMITS.gifFrames) return 'gifFrames';
  if (kind === 'gif' && h.frames * h.width * h.height > PICTURE_LIMITS.gifPixels) return 'gifPixels';
  if (kind === 'jpeg' && (h.scans ?? 0) > PICTURE_LIMITS.jpegScans) return 'jpegScans';
  return null;
}

/** The kind of picture these bytes are, by their signature; null for anything else. */
export function sniffPicture(bytes: Uint8Array): PictureKind | null {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png';
  if (starts(0xff, 0xd8, 0xff)) return 'jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return 'gif';
  if (starts(0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50) return 'webp';
  return null;
}

/** A picture's row without its bytes (COLUMNS: raw, since put is an upsert returning them). */
export type StoredPicture = Pick<
  RawSelect<typeof coursePictures>,
  'id' | 'courseId' | 'sha256' | 'contentType' | 'width' | 'height' | 'originalName'
>;

/** A picture's public path: its content's hash and its kind, so the bytes behind it never change. */
export function picturePath(p: { sha256: string; contentType: string }): string {
  const kind = (Object.keys(PICTURE_TYPES) as PictureKind[]).find((k) => PICTURE_TYPES[k] === p.contentType) ?? 'png';
  return `/media/pictures/${p.sha256}.${kind}`;
}

/** Where pictures live: a small interface so another store (S3-compatible) can stand in for PostgreSQL. */
export interface PictureStore {
  put(picture: Omit<StoredPicture, 'id'> & { bytes: Buffer; uploadedBy: string | null }, tx: Db): Promise<StoredPicture>;
  /** The bytes of the picture with this hash (any course: the URL is public, like the course's cover). */
  get(sha256: string): Promise<{ contentType: string; bytes: Buffer } | null>;
}

const COLUMNS = sql.raw(
  `id, course_id as "courseId", sha256, content_type as "contentType", width, height, original_name as "originalName"`,
);

/** The PostgreSQL store: a row per picture in course_pictures (bytea), shared by every instance. */
export function postgresPictureStore(db: Db): PictureStore {
  return {
    async put(p, tx) {
      const [row] = await typedRows<StoredPicture>(
        tx,
        sql`
        insert into course_pictures (course_id, sha256, content_type, bytes, width, height, original_name, uploaded_by)
        values (${p.courseId}, ${p.sha256}, ${p.contentType}, ${p.bytes}, ${p.width}, ${p.height}, ${p.originalName}, ${p.uploadedBy})
        on conflict (course_id, sha256) do update set original_name = excluded.original_name
        returning ${COLUMNS}`,
      );
      return row;
    },
    async get(sha256) {
      const { rows } = await db.execute(
        sql`select content_type as "contentType", bytes from course_pictures where sha256 = ${sha256} order by id limit 1`,
      );
      const row = rows[0] as { contentType: string; bytes: Buffer | Uint8Array } | undefined;
      return row ? { contentType: row.contentType, bytes: Buffer.from(row.bytes) } : null;
    },
  };
}

/**
 * Checks, decodes and scales a picture; 422 for anything that is not a PNG, JPEG, WebP or GIF
 * picture, or one over PICTURE_LIMITS (found before a pixel is decoded).
 */
export async function preparePicture(bytes: Buffer): Promise<{ kind: PictureKind; bytes: Buffer; width: number; height: number }> {
  const kind = sniffPicture(bytes);
  if (kind === null) throw new UnsupportedPictureError('Only PNG, JPEG, WebP and GIF pictures are accepted (the file is something else)');
  const unreadable = () => new UnsupportedPictureError(`The file starts like a ${kind.toUpperCase()} picture but is not a readable one`);
  let header: PictureHeader;
  try {
    header = readPictureHeader(bytes, kind);
  } catch (err) {
    if (err instanceof MalformedPictureError) throw unreadable();
    throw err;
  }
  const over = pictureOverLimit(kind, header);
  if (over) throw new PictureTooLargeError(over, header);
  const options = { animated: kind === 'gif', limitInputPixels: PICTURE_LIMITS.pixels };
  // What sharp reads from the header (no pixels yet) must be the same kind, within the same limits.
  const meta = await sharp(bytes, options)
    .metadata()
    .catch(() => null);
  if (!meta || meta.format !== kind || !meta.width || !meta.height) throw unreadable();
  const seen = {
    width: meta.width,
    height: meta.pageHeight ?? meta.height,
    frames: kind === 'gif' ? (meta.pages ?? 1) : 1,
    scans: header.scans,
  };
  const overAsRead = pictureOverLimit(kind, seen);
  if (overAsRead) throw new PictureTooLargeError(overAsRead, seen);
  try {
    const image = sharp(bytes, options).rotate();
    const resized = image.resize({ width: PICTURE_MAX_WIDTH, withoutEnlargement: true });
    const { data, info } = await resized.toFormat(kind).toBuffer({ resolveWithObject: true });
    return { kind, bytes: data, width: info.width, height: info.pageHeight ?? info.height };
  } catch {
    throw new UnsupportedPictureError(`The file starts like a ${kind.toUpperCase()} picture but is not a readable one`);
  }
}

/** Uploads a picture to a course the author may write; recorded in its history. */
export async function uploadPicture(
  db: Db,
  store: PictureStore,
  ctx: AuthoringContext,
  courseId: number,
  file: { bytes: Buffer; name: string },
): Promise<StoredPicture> {
  // The right first (a 404/403 costs no decoding), then the work outside any transaction.
  await findAuthoredCourse(db, ctx.author, { course: courseId });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (/[\u0000-\u001f\u007f]/.test(file.name)) throw new PictureNameError('The file name holds a control character (NUL, a line break…)');
  const prepared = await preparePicture(file.bytes);
  const sha256 = createHash('sha256').update(prepared.bytes).digest('hex');
  return inTransaction(db, async (tx) => {
    await lockAuthoredCourse(tx, ctx.author, { course: courseId });
    const stored = await store.put(
      {
        courseId,
        sha256,
        contentType: PICTURE_TYPES[prepared.kind],
        bytes: prepared.bytes,
        width: prepared.width,
        height: prepared.height,
        // Cut at 200 characters, never inside one (half a surrogate pair cannot be stored).
        originalName: Array.from(file.name).slice(0, 200).join(''),
        uploadedBy: ctx.author.kind === 'session' ? ctx.author.userId : null,
      },
      tx,
    );
    await recordChange(tx, ctx, {
      courseId,
      action: 'picture.upload',
      targetId: stored.id,
      changes: [{ path: `pictures[${stored.id}]`, to: { name: stored.originalName, sha256, bytes: prepared.bytes.length } }],
    });
    return stored;
  });
}

/** The course's pictures, newest first (for those who may author it). */
export async function listPictures(db: Db, ctx: AuthoringContext, courseId: number): Promise<StoredPicture[]> {
  await findAuthoredCourse(db, ctx.author, { course: courseId });
  return typedRows<StoredPicture>(db, sql`select ${COLUMNS} from course_pictures where course_id = ${courseId} order by id desc`);
}

/**
 * A picture reached by its id for editing (delete, make it the cover) within `courseId`: a
 * picture of any other course is "not found", whoever asks, so ids cannot be probed.
 */
export async function findCoursePicture(db: Db, ctx: AuthoringContext, courseId: number, pictureId: number): Promise<StoredPicture> {
  await findAuthoredCourse(db, ctx.author, { course: courseId });
  const [row] = await typedRows<StoredPicture>(
    db,
    sql`select ${COLUMNS} from course_pictures where id = ${pictureId} and course_id = ${courseId}`,
  );
  if (!row) throw new NotFoundError('Picture not found');
  return row;
}

/** Deletes a picture of the course (its URL stops answering once no course keeps the same file). */
export async function deletePicture(db: Db, ctx: AuthoringContext, courseId: number, pictureId: number): Promise<void> {
  const picture = await findCoursePicture(db, ctx, courseId, pictureId);
  await inTransaction(db, async (tx) => {
    await lockAuthoredCourse(tx, ctx.author, { course: courseId });
    await tx.execute(sql`delete from course_pictures where id = ${pictureId} and course_id = ${courseId}`);
    await recordChange(tx, ctx, {
      courseId,
      action: 'picture.delete',
      targetId: pictureId,
      changes: [{ path: `pictures[${pictureId}]`, from: { name: picture.originalName, sha256: picture.sha256 } }],
    });
  });
}

/**
 * The path of one of our own pictures, when `url` is one (PUBLIC_URL + /media/pictures/…), for a
 * page to show it from its own origin (the page CSP loads images from 'self' only); else null.
 */
export function ownPicturePath(url: string | null | undefined, publicUrl: string): string | null {
  if (!url) return null;
  const base = publicUrl.replace(/\/$/, '');
  const path = url.startsWith(base) ? url.slice(base.length) : url;
  return /^\/media\/pictures\/[0-9a-f]{64}\.(png|jpeg|webp|gif)$/.test(path) ? path : null;
}
