import sharp from 'sharp';
import t from 'tap';
import { MalformedPictureError, readPictureHeader } from '../../src/domain/media/picture-header.js';
import { sniffPicture } from '../../src/domain/media/pictures.js';

// CI runs this file once (not again in the PostgreSQL pass): image headers read by pure functions, no database.

// The structure readers that bound a picture's decoding (domain/media/picture-header.ts) must read
// what sharp reads from real files of every kind and variant an author's tools write, or a real
// picture would be refused (or a bomb let through).

const noise = (width: number, height: number, channels: 3 | 4) => {
  const raw = Buffer.alloc(width * height * channels);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 24;
  return sharp(raw, { raw: { width, height, channels } });
};

t.test('real files: the same size and frames as sharp reads', async (t) => {
  const files: Record<string, Buffer> = {
    png: await noise(301, 207, 3).png().toBuffer(),
    'png with alpha, interlaced': await noise(64, 33, 4).png({ progressive: true }).toBuffer(),
    'jpeg baseline': await noise(640, 480, 3).jpeg().toBuffer(),
    'jpeg progressive': await noise(640, 480, 3).jpeg({ progressive: true }).toBuffer(),
    'jpeg with EXIF orientation': await noise(120, 80, 3).jpeg().withMetadata({ orientation: 6 }).toBuffer(),
    'jpeg mozjpeg': await noise(200, 100, 3).jpeg({ mozjpeg: true }).toBuffer(),
    'webp lossy': await noise(321, 123, 3).webp().toBuffer(),
    'webp lossless': await noise(321, 123, 3).webp({ lossless: true }).toBuffer(),
    'webp with alpha': await noise(77, 55, 4).webp().toBuffer(),
    gif: await noise(90, 60, 3).gif().toBuffer(),
  };
  const frames = 6;
  const strip = noise(50, 40 * frames, 3);
  files['gif animated'] = await sharp(await strip.raw().toBuffer(), {
    raw: { width: 50, height: 40 * frames, channels: 3, pageHeight: 40 },
  })
    .gif()
    .toBuffer();
  files['webp animated'] = await sharp(await strip.raw().toBuffer(), {
    raw: { width: 50, height: 40 * frames, channels: 3, pageHeight: 40 },
  })
    .webp()
    .toBuffer();
  for (const [name, bytes] of Object.entries(files)) {
    const kind = sniffPicture(bytes);
    t.ok(kind, `${name}: a picture`);
    const header = readPictureHeader(bytes, kind!);
    const meta = await sharp(bytes, { animated: kind === 'gif' }).metadata();
    t.same(
      { width: header.width, height: header.height },
      { width: meta.width, height: meta.pageHeight ?? meta.height },
      `${name}: ${header.width} x ${header.height}`,
    );
    if (kind === 'gif') t.equal(header.frames, meta.pages ?? 1, `${name}: ${header.frames} frames`);
    if (kind === 'jpeg') t.ok((header.scans ?? 0) >= 1, `${name}: ${header.scans} scans`);
  }
  t.ok((readPictureHeader(files['jpeg progressive']!, 'jpeg').scans ?? 0) > 1, 'a progressive JPEG has several scans');
  t.equal(readPictureHeader(files['jpeg baseline']!, 'jpeg').scans, 1, 'a baseline JPEG one');
});

t.test('files cut short or without their structure are malformed', async (t) => {
  const png = await noise(10, 10, 3).png().toBuffer();
  const jpeg = await noise(10, 10, 3).jpeg().toBuffer();
  const cases: Array<[string, Buffer, 'png' | 'jpeg' | 'webp' | 'gif']> = [
    ['a PNG signature alone', png.subarray(0, 8), 'png'],
    ['a PNG without IHDR first', Buffer.concat([png.subarray(0, 12), Buffer.from('IDAT'), png.subarray(16)]), 'png'],
    ['a PNG of 0 x 0', Buffer.concat([png.subarray(0, 16), Buffer.alloc(8), png.subarray(24)]), 'png'],
    ['a JPEG start alone', jpeg.subarray(0, 3), 'jpeg'],
    ['a JPEG scan before its frame header', Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2, 0xff, 0xd9]), 'jpeg'],
    ['a WebP of an unknown chunk', Buffer.concat([Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP9 '), Buffer.alloc(20)]), 'webp'],
    ['a GIF with an unknown block', Buffer.concat([Buffer.from('GIF89a'), Buffer.from([1, 0, 1, 0, 0, 0, 0, 0x99])]), 'gif'],
    ['a GIF with no image', Buffer.concat([Buffer.from('GIF89a'), Buffer.from([1, 0, 1, 0, 0, 0, 0, 0x3b])]), 'gif'],
  ];
  for (const [name, bytes, kind] of cases) {
    const err = (() => {
      try {
        readPictureHeader(bytes, kind);
        return null;
      } catch (e) {
        return e;
      }
    })();
    t.ok(err instanceof MalformedPictureError, `${name}: ${(err as Error | null)?.message}`);
  }
});
