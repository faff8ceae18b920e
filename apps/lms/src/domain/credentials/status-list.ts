import { gunzipSync, gzipSync } from 'node:zlib';
import { certificates, type Db } from '@lms/db';
import { and, gte, isNotNull, lt, max } from 'drizzle-orm';

// W3C Bitstring Status List v1.0 (https://www.w3.org/TR/vc-bitstring-status-list/): lists of
// 131,072 bits (the spec's minimum size, 16 KB uncompressed). A certificate's bit is its
// `status_entry` e: list n = floor(e / 131072) + 1, index = e mod 131072. The database draws e
// when the certificate is inserted: a random free index of the current list, each list taking
// 65,536 certificates (packages/db/sql/7-certificate-status-entries.sql), so that a list's set
// bits say nothing of how many certificates exist or when one was issued, as the spec asks
// ("SHOULD assign indexes randomly"). Certificates issued before that keep e = their id, which
// the credentials they downloaded name. Bit i is 1 when the certificate is revoked; bits are
// counted from the most significant bit of the first byte (the spec's "left-most bit", section
// 3.2 "Bitstring Generation Algorithm"); encodedList is multibase 'u' + base64url (no padding) of
// the GZIP of the bitstring.

export const STATUS_LIST_SIZE = 131_072;

/** Where a certificate's revocation bit is: list n (from 1) and its index in the list. */
export function statusEntryOf(statusEntry: number): { list: number; index: number } {
  return { list: Math.floor(statusEntry / STATUS_LIST_SIZE) + 1, index: statusEntry % STATUS_LIST_SIZE };
}

/** A path segment as a list number: a positive whole number that some status entry could use, or null. */
export function parseListNumber(segment: string): number | null {
  if (!/^[1-9][0-9]{0,9}$/.test(segment)) return null;
  const n = Number(segment);
  // Status entries are PostgreSQL integers: lists past the last possible one do not exist.
  return (n - 1) * STATUS_LIST_SIZE <= 2_147_483_647 ? n : null;
}

/**
 * The bitstring of list n (revoked certificates set), or null when the list does not exist: list 1
 * always does; list n > 1 once a certificate's entry reaches it.
 */
export async function statusListBits(db: Db, n: number): Promise<Uint8Array | null> {
  const low = (n - 1) * STATUS_LIST_SIZE;
  if (n > 1) {
    const [row] = await db.select({ last: max(certificates.statusEntry) }).from(certificates);
    if (row?.last === null || row?.last === undefined || row.last < low) return null;
  }
  const revoked = await db
    .select({ entry: certificates.statusEntry })
    .from(certificates)
    .where(
      and(isNotNull(certificates.revokedAt), gte(certificates.statusEntry, low), lt(certificates.statusEntry, low + STATUS_LIST_SIZE)),
    );
  const bits = new Uint8Array(STATUS_LIST_SIZE / 8);
  for (const { entry } of revoked) {
    const i = entry - low;
    // biome-ignore lint/style/noNonNullAssertion: i < STATUS_LIST_SIZE, so the byte exists.
    bits[i >> 3] = bits[i >> 3]! | (0x80 >> (i & 7));
  }
  return bits;
}

/** encodedList: multibase base64url ('u') of the GZIP-compressed bitstring. */
export function encodeList(bits: Uint8Array): string {
  return `u${gzipSync(bits).toString('base64url')}`;
}

/** The bitstring of an encodedList, or null when it is not one (bounded: a list of at most 16 Mbit). */
export function decodeList(encoded: string): Uint8Array | null {
  if (!encoded.startsWith('u') || !/^u[A-Za-z0-9_-]+$/.test(encoded)) return null;
  try {
    return new Uint8Array(gunzipSync(Buffer.from(encoded.slice(1), 'base64url'), { maxOutputLength: 2 * 1024 * 1024 }));
  } catch {
    return null;
  }
}

/** Bit `index` of a bitstring (most significant bit first), or null past its end. */
export function bitAt(bits: Uint8Array, index: number): boolean | null {
  const byte = bits[index >> 3];
  if (byte === undefined || index < 0) return null;
  return (byte & (0x80 >> (index & 7))) !== 0;
}
