// The studio's words for its pictures page (pictures.ts), in Bahasa Indonesia (the reference) and
// English: the `studio.pictures` block of ./messages.ts.

export function studioPictureMessagesId() {
  return {
    title: 'Gambar',
    upload: 'Unggah gambar',
    file: 'Berkas (PNG, JPEG, WebP atau GIF)',
    limit: (mb: string) => `Paling besar ${mb} MB.`,
    uploaded: 'Gambar diunggah.',
    tooLarge: (mb: string) => `Berkas terlalu besar: paling besar ${mb} MB.`,
    noFile: 'Pilih berkas gambar.',
    tooManyPixels: (w: string, h: string, max: string) =>
      `Gambar berukuran ${w} × ${h} piksel: paling banyak ${max} piksel (satu bingkai) yang diterima.`,
    tooManyFrames: (frames: string, max: string) => `GIF ini memiliki ${frames} bingkai: paling banyak ${max} bingkai yang diterima.`,
    gifTooLarge: (frames: string, w: string, h: string, total: string, max: string) =>
      `GIF ini memuat ${total} piksel untuk diurai (${frames} × ${w} × ${h}: bingkai × lebar × tinggi): paling banyak ${max} piksel untuk semua bingkai yang diterima.`,
    tooManyScans: (scans: string, max: string) => `JPEG ini memiliki ${scans} pemindaian (scan): paling banyak ${max} yang diterima.`,
    badName: 'Nama berkas memuat karakter kendali (NUL, pindah baris…): ganti nama berkas lalu unggah lagi.',
    makeCover: 'Jadikan sampul',
    isCover: 'Sampul',
    delete: 'Hapus',
    none: 'Belum ada gambar.',
  };
}

export function studioPictureMessagesEn(): ReturnType<typeof studioPictureMessagesId> {
  return {
    title: 'Pictures',
    upload: 'Upload a picture',
    file: 'File (PNG, JPEG, WebP or GIF)',
    limit: (mb: string) => `At most ${mb} MB.`,
    uploaded: 'Picture uploaded.',
    tooLarge: (mb: string) => `The file is too large: at most ${mb} MB.`,
    noFile: 'Choose a picture file.',
    tooManyPixels: (w: string, h: string, max: string) =>
      `The picture is ${w} × ${h} pixels: at most ${max} pixels (one frame) are accepted.`,
    tooManyFrames: (frames: string, max: string) => `The GIF has ${frames} frames: at most ${max} frames are accepted.`,
    gifTooLarge: (frames: string, w: string, h: string, total: string, max: string) =>
      `The GIF holds ${total} pixels to decode (${frames} × ${w} × ${h}: frames × width × height): at most ${max} pixels over all frames are accepted.`,
    tooManyScans: (scans: string, max: string) => `The JPEG has ${scans} scans: at most ${max} are accepted.`,
    badName: 'The file name holds a control character (NUL, a line break…): rename the file and upload it again.',
    makeCover: 'Make it the cover',
    isCover: 'Cover',
    delete: 'Delete',
    none: 'No pictures yet.',
  };
}
