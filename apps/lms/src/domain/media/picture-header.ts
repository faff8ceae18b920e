// What a picture file says it holds, read from its structure without decoding a pixel: the size
// of its canvas and how many frames a decoder would paint on it. pictures.ts bounds the work of
// decoding by these figures before sharp sees the file (docs/authoring.md, "Media"). Each
// reader walks the file once (linear in its bytes, at most the upload limit) and refuses what is
// not the structure its signature promises.

export type PictureKind = 'png' | 'jpeg' | 'webp' | 'gif';

export interface PictureHeader {
  /** The canvas a decoder fills: for a GIF, the logical screen grown to hold every frame. */
  width: number;
  height: number;
  /** Frames a decoder would decode: a GIF's image descriptors; 1 for the others (only a first frame is read). */
  frames: number;
  /** JPEG: its scans (a progressive file has one per pass; each pass decodes the whole picture again). */
  scans?: number;
}

/** The file does not have the structure of the kind its first bytes name. */
export class MalformedPictureError extends Error {
  override name = 'MalformedPictureError';
}

const u16le = (b: Uint8Array, i: number) => (b[i] ?? 0) | ((b[i + 1] ?? 0) << 8);
const u16be = (b: Uint8Array, i: number) => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
const u24le = (b: Uint8Array, i: number) => u16le(b, i) | ((b[i + 2] ?? 0) << 16);
const u32be = (b: Uint8Array, i: number) => u16be(b, i) * 65536 + u16be(b, i + 2);
const ascii = (b: Uint8Array, i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n));

function need(ok: boolean, what: string): asserts ok {
  if (!ok) throw new MalformedPictureError(what);
}

/** The header of a picture whose signature said `kind` (pictures.ts, sniffPicture). */
export function readPictureHeader(bytes: Uint8Array, kind: PictureKind): PictureHeader {
  const header = kind === 'png' ? png(bytes) : kind === 'jpeg' ? jpeg(bytes) : kind === 'webp' ? webp(bytes) : gif(bytes);
  need(header.width > 0 && header.height > 0, 'no width or height');
  return header;
}

/** PNG: the IHDR chunk, first after the signature. Only the default image is decoded (not APNG's frames). */
function png(b: Uint8Array): PictureHeader {
  need(b.length >= 24 && ascii(b, 12, 4) === 'IHDR' && u32be(b, 8) === 13, 'no IHDR chunk');
  return { width: u32be(b, 16), height: u32be(b, 20), frames: 1 };
}

const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** JPEG: the markers in order; the frame header (SOFn) gives the size; each SOS starts a scan. */
function jpeg(b: Uint8Array): PictureHeader {
  let i = 2;
  let size: { width: number; height: number } | null = null;
  let scans = 0;
  while (i < b.length) {
    // As libjpeg does, bytes that are not a marker are skipped (it warns of "extraneous bytes").
    while (i < b.length && b[i] !== 0xff) i++;
    while (b[i] === 0xff) i++; // fill bytes
    const marker = b[i++];
    if (marker === undefined || marker === 0xd9) break; // end of image (or of the file)
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) continue; // no length
    const length = u16be(b, i);
    need(length >= 2, 'a segment without its length');
    if (marker !== undefined && SOF.has(marker)) {
      need(size === null, 'two frame headers');
      size = { height: u16be(b, i + 3), width: u16be(b, i + 5) };
    }
    i += length;
    if (marker === 0xda) {
      need(size !== null, 'a scan before the frame header');
      scans++;
      // Entropy-coded data up to the next marker that is not a stuffed 0xFF00 or a restart marker.
      while (i < b.length - 1 && !(b[i] === 0xff && b[i + 1] !== 0x00 && !((b[i + 1] as number) >= 0xd0 && (b[i + 1] as number) <= 0xd7)))
        i++;
      if (i >= b.length - 1) break;
    }
  }
  need(size !== null, 'no frame header');
  return { ...size, frames: 1, scans };
}

/** WebP: the first chunk (VP8, VP8L, or VP8X with the canvas of an extended or animated file). */
function webp(b: Uint8Array): PictureHeader {
  need(b.length >= 30, 'too short');
  const chunk = ascii(b, 12, 4);
  if (chunk === 'VP8 ') {
    need(b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a, 'no VP8 start code');
    return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff, frames: 1 };
  }
  if (chunk === 'VP8L') {
    need(b[20] === 0x2f, 'no VP8L signature');
    const bits = (b[21] as number) | ((b[22] as number) << 8) | ((b[23] as number) << 16) | ((b[24] as number) << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, frames: 1 };
  }
  need(chunk === 'VP8X', 'an unknown first chunk');
  return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1, frames: 1 };
}

/**
 * GIF: the logical screen, then blocks: an image descriptor (a frame: its place and size, a local
 * colour table, LZW data in sub-blocks), an extension (sub-blocks), the trailer. A decoder paints
 * every frame on a canvas the size of the screen (grown when a frame lies outside it), so the work
 * is frames x canvas. A file cut short counts the frames begun (decoders show a truncated GIF).
 */
function gif(b: Uint8Array): PictureHeader {
  need(b.length >= 13, 'no logical screen descriptor');
  let width = u16le(b, 6);
  let height = u16le(b, 8);
  let i = 13;
  if ((b[10] as number) & 0x80) i += 3 * 2 ** (((b[10] as number) & 7) + 1);
  const skipSubBlocks = () => {
    while (i < b.length) {
      const size = b[i] as number;
      i += 1 + size;
      if (size === 0) return;
    }
  };
  let frames = 0;
  while (i < b.length) {
    const block = b[i++];
    if (block === 0x3b) break; // trailer
    if (block === 0x21) {
      i++; // label
      skipSubBlocks();
    } else if (block === 0x2c) {
      need(i + 9 <= b.length, 'an image descriptor cut short');
      frames++;
      width = Math.max(width, u16le(b, i) + u16le(b, i + 4));
      height = Math.max(height, u16le(b, i + 2) + u16le(b, i + 6));
      const packed = b[i + 8] as number;
      i += 9;
      if (packed & 0x80) i += 3 * 2 ** ((packed & 7) + 1);
      i++; // LZW minimum code size
      skipSubBlocks();
    } else {
      throw new MalformedPictureError(`an unknown block 0x${(block ?? 0).toString(16)}`);
    }
  }
  need(frames > 0, 'no image');
  return { width, height, frames };
}
