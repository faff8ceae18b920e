import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { makeInstitution, makeUser } from '../../helpers/fixtures.js';
import { heldLoop, heldText } from '../../helpers/event-loop.js';
import { browserOf } from './helpers.js';

// An author uploading pictures made to cost the LMS: a GIF of many large frames in a few KB (38
// frames of 1000 x 1000 in 2.6 KB cost 2-9 s of CPU, 8 in parallel kept both cores busy 38 s),
// headers announcing a huge canvas, a JPEG of many scans, files whose signature and structure
// disagree, and a file name with a NUL (a 500). Each is refused with a 422 page naming the limit
// before a pixel is decoded; what stays within the limits is kept.

const u16 = (n: number) => [n & 0xff, n >> 8];
const u32be = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];

/** A GIF of `frames` frames of `width` x `height` whose LZW data is two codes (clear, end): a decoder fills each whole frame. */
function gifBomb(frames: number, width: number, height: number, lzw = [0x02, 0x02, 0x4c, 0x01, 0x00]): Buffer {
  const head = [...Buffer.from('GIF89a'), ...u16(width), ...u16(height), 0x80, 0, 0, 0, 0, 0, 255, 255, 255];
  const loop = [0x21, 0xff, 11, ...Buffer.from('NETSCAPE2.0'), 3, 1, 0, 0, 0];
  const frame = [0x21, 0xf9, 4, 0x04, 10, 0, 0, 0, 0x2c, 0, 0, 0, 0, ...u16(width), ...u16(height), 0, ...lzw];
  return Buffer.from([...head, ...loop, ...Array.from({ length: frames }, () => frame).flat(), 0x3b]);
}

/** A PNG signature and an IHDR announcing `width` x `height`, then no picture data at all. */
const pngHeader = (width: number, height: number) =>
  Buffer.from([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    ...u32be(13),
    ...Buffer.from('IHDR'),
    ...u32be(width),
    ...u32be(height),
    8,
    2,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
  ]);

/** A JPEG start, a frame header of `width` x `height` and `scans` empty scans. */
function jpegScans(width: number, height: number, scans: number): Buffer {
  const sof = [0xff, 0xc2, 0, 11, 8, ...u16(height).reverse(), ...u16(width).reverse(), 1, 1, 0x11, 0];
  const sos = [0xff, 0xda, 0, 8, 1, 1, 0, 0, 0x3f, 0, 0x00, 0x00];
  return Buffer.from([0xff, 0xd8, ...sof, ...Array.from({ length: scans }, () => sos).flat(), 0xff, 0xd9]);
}

/** A WebP whose extended header (VP8X) announces a canvas of `width` x `height`. */
function webpCanvas(width: number, height: number): Buffer {
  const u24 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff];
  const vp8x = [...Buffer.from('VP8X'), 10, 0, 0, 0, 0x02, 0, 0, 0, ...u24(width - 1), ...u24(height - 1)];
  return Buffer.from([...Buffer.from('RIFF'), ...[vp8x.length + 4, 0, 0, 0], ...Buffer.from('WEBP'), ...vp8x]);
}

t.test('picture bombs', async (t) => {
  const { app, db } = await buildTestApp(t, { config: { STUDIO_UPLOAD_LIMIT_BYTES: 5 * 1024 * 1024 } });
  const institutionId = await makeInstitution(db.db);
  const owner = await makeUser(db.db, { role: 'teacher', institutionId });
  const a = await browserOf(app, owner.id);
  const id = await browserOf(app, owner.id, 'id');
  const created = await a.post('/dashboard/studio/new', { name: 'Kursus Gambar' });
  const courseId = Number(created.location?.match(/courses\/(\d+)$/)?.[1]);
  const stored = async () =>
    Number((await db.db.execute(sql`select count(*)::int as n from course_pictures where course_id = ${courseId}`)).rows[0]!.n);
  const upload = (bytes: Buffer, name = 'gambar.gif', type = 'image/gif', b = a) =>
    b.upload(`/dashboard/studio/courses/${courseId}/pictures`, { name, type, bytes });

  t.test("the issue's GIF: 38 frames of 1000 x 1000", async (t) => {
    const bomb = gifBomb(38, 1000, 1000);
    t.ok(bomb.length < 2700, `${bomb.length} bytes`);
    const cpu = process.cpuUsage();
    const res = await upload(bomb);
    const used = process.cpuUsage(cpu);
    t.equal(res.status, 422, 'refused');
    t.match(
      res.body,
      'The GIF holds 38,000,000 pixels to decode (38 × 1,000 × 1,000: frames × width × height): at most 8,000,000 pixels over all frames are accepted.',
    );
    t.comment(`CPU of the refusal: ${((used.user + used.system) / 1000).toFixed(0)} ms`);
    const inIndonesian = await upload(bomb, 'gambar.gif', 'image/gif', id);
    t.match(inIndonesian.body, 'GIF ini memuat 38.000.000 piksel untuk diurai (38 × 1.000 × 1.000: bingkai × lebar × tinggi)');
    const unreadable = gifBomb(38, 1000, 1000, [0x02, 0x03, 0xff, 0xff, 0xff, 0x00]);
    t.match((await upload(unreadable)).body, '38,000,000 pixels to decode', 'its LZW data is never read: refused by its structure alone');
    t.equal(await stored(), 0, 'nothing stored');
  });

  t.test('more frames than the limit, however small', async (t) => {
    const res = await upload(gifBomb(301, 1, 1));
    t.equal(res.status, 422);
    t.match(res.body, `The GIF has 301 frames: at most 300 frames are accepted.`);
  });

  t.test('a frame placed far outside the logical screen grows the canvas it is counted on', async (t) => {
    const small = gifBomb(1, 10, 10);
    // The image descriptor's left and top (offsets after the logical screen and the loop extension).
    const descriptor = small.indexOf(0x2c, 13 + 6 + 19 + 8);
    small.writeUInt16LE(2990, descriptor + 1);
    small.writeUInt16LE(2990, descriptor + 3);
    const res = await upload(small);
    t.equal(res.status, 422);
    t.match(res.body, '(1 × 3,000 × 3,000: frames × width × height)');
  });

  t.test('headers announcing huge pictures, of each kind', async (t) => {
    const png = await upload(pngHeader(20_000, 20_000), 'big.png', 'image/png');
    t.equal(png.status, 422);
    t.match(png.body, 'The picture is 20,000 × 20,000 pixels: at most 40,000,000 pixels (one frame) are accepted.');
    const jpeg = await upload(jpegScans(65_000, 65_000, 1), 'big.jpg', 'image/jpeg');
    t.equal(jpeg.status, 422);
    t.match(jpeg.body, 'The picture is 65,000 × 65,000 pixels');
    const webp = await upload(webpCanvas(16_000, 16_000), 'big.webp', 'image/webp');
    t.equal(webp.status, 422);
    t.match(webp.body, 'The picture is 16,000 × 16,000 pixels');
    const gif = await upload(gifBomb(1, 3000, 3000));
    t.equal(gif.status, 422, 'a still GIF counts against the GIF limit too (re-encoding a GIF is the costly part)');
    t.match(gif.body, 'The GIF holds 9,000,000 pixels to decode (1 × 3,000 × 3,000');
    t.equal(await stored(), 0);
  });

  t.test('a JPEG of many scans', async (t) => {
    const res = await upload(jpegScans(100, 100, 101), 'scans.jpg', 'image/jpeg');
    t.equal(res.status, 422);
    t.match(res.body, 'The JPEG has 101 scans: at most 100 are accepted.');
  });

  t.test('files whose signature and structure disagree', async (t) => {
    const realPng = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#08f' } })
      .png()
      .toBuffer();
    const realGif = gifBomb(1, 8, 8);
    const pngOverGif = Buffer.concat([realPng.subarray(0, 8), realGif]);
    t.equal((await upload(pngOverGif, 'x.png', 'image/png')).status, 422, 'a PNG signature over a GIF');
    const gifOverPng = Buffer.concat([realGif.subarray(0, 6), realPng.subarray(6)]);
    t.equal((await upload(gifOverPng)).status, 422, 'a GIF signature over a PNG');
    const webpOverPng = Buffer.concat([Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBP'), realPng]);
    const lied = await upload(webpOverPng, 'x.webp', 'image/webp');
    t.equal(lied.status, 422, 'a WebP signature over a PNG');
    t.match(lied.body, 'This file is not a readable PNG, JPEG, WebP or GIF picture.');
    const liedId = await upload(webpOverPng, 'x.webp', 'image/webp', id);
    t.match(liedId.body, 'Berkas ini bukan gambar PNG, JPEG, WebP atau GIF yang dapat dibaca.', 'said in Indonesian too');
    t.equal(await stored(), 0);
  });

  t.test('a file name with a control character: a 422 page, nothing stored', async (t) => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#08f' } })
      .png()
      .toBuffer();
    for (const name of ['a\u0000b.png', 'a\u007fb.png']) {
      const res = await upload(png, name, 'image/png');
      t.equal(res.status, 422, JSON.stringify(name));
      t.match(res.body, 'The file name holds a control character');
    }
    t.match((await upload(png, 'a\u0000b.png', 'image/png', id)).body, 'Nama berkas memuat karakter kendali');
    t.equal(await stored(), 0);
    const fine = await upload(png, `${'é'.repeat(199)}😀😀.png`, 'image/png');
    t.equal(fine.status, 303, 'a long name of any letters is kept');
    const kept = (await db.db.execute(sql`select original_name from course_pictures where course_id = ${courseId}`)).rows[0]!;
    t.equal(kept.original_name, `${'é'.repeat(199)}😀`, 'cut at 200 characters, never inside one');
  });

  t.test('what stays within the limits is kept, without holding the event loop', async (t) => {
    const frames = 10;
    const raw = Buffer.alloc(200 * 150 * frames * 3);
    for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 24;
    const animated = await sharp(raw, { raw: { width: 200, height: 150 * frames, channels: 3, pageHeight: 150 } })
      .gif()
      .toBuffer();
    const res = await upload(animated, 'gerak.gif');
    t.equal(res.status, 303, 'an animated GIF of 10 frames of 200 x 150 is kept');
    const row = (
      await db.db.execute(sql`select width, height from course_pictures where course_id = ${courseId} and content_type = 'image/gif'`)
    ).rows[0]!;
    t.same([row.width, row.height], [200, 150]);
    // The worst the limits allow: 8 frames of 1000 x 1000, decoded and encoded again (off the event loop, by sharp).
    const atLimit = await heldLoop(() => upload(gifBomb(8, 1000, 1000), 'batas.gif'));
    t.equal(atLimit.result.status, 303, 'a GIF of exactly 8,000,000 pixels is kept');
    t.ok(atLimit.maxMs < 200, `the upload held the event loop ${heldText(atLimit)}`);
  });
});
