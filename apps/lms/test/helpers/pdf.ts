import jsQRModule from 'jsqr';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';

// Reading a PDF the way its reader's software does (pdf.js, Firefox's): its text, page by page,
// and the QR codes of its images (jsQR over the decoded pixels), so a test checks the document,
// not the code that wrote it.

// jsqr is CommonJS: its function is the module itself, or its `default` under some loaders.
type JsQr = typeof jsQRModule.default;
const jsQR: JsQr = (jsQRModule as unknown as { default?: JsQr }).default ?? (jsQRModule as unknown as JsQr);

/** The document and, to end with, the loading task's destroy (pdf.js 6: the document has none of its own). */
async function open(bytes: Buffer) {
  const task = getDocument({
    data: new Uint8Array(bytes),
    disableFontFace: true,
    useSystemFonts: false,
    isOffscreenCanvasSupported: false,
    verbosity: 0,
  });
  return { doc: await task.promise, close: () => task.destroy() };
}

/** The text of every page, items joined by spaces (NFC), and the page count and size of the first page. */
export async function pdfText(bytes: Buffer): Promise<{ text: string; pages: number; width: number; height: number }> {
  const { doc, close } = await open(bytes);
  const parts: string[] = [];
  const first = await doc.getPage(1);
  const [, , width, height] = first.view as [number, number, number, number];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    for (const item of content.items) if ('str' in item) parts.push(item.str);
  }
  const pages = doc.numPages;
  await close();
  return { text: parts.join(' ').normalize('NFC').replace(/\s+/g, ' '), pages, width, height };
}

interface DecodedImage {
  width: number;
  height: number;
  /** 1: 1 bit grey, 2: RGB, 3: RGBA (pdf.js ImageKind). */
  kind: number;
  data: Uint8Array | Uint8ClampedArray;
}

function toRgba(img: DecodedImage): Uint8ClampedArray {
  const out = new Uint8ClampedArray(img.width * img.height * 4);
  if (img.kind === 3) out.set(img.data);
  else if (img.kind === 2) {
    for (let i = 0, j = 0; i < img.width * img.height; i++, j += 3) {
      out[i * 4] = img.data[j]!;
      out[i * 4 + 1] = img.data[j + 1]!;
      out[i * 4 + 2] = img.data[j + 2]!;
      out[i * 4 + 3] = 255;
    }
  } else {
    const rowBytes = Math.ceil(img.width / 8);
    for (let y = 0; y < img.height; y++)
      for (let x = 0; x < img.width; x++) {
        const bit = (img.data[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1;
        const v = bit ? 255 : 0;
        out.set([v, v, v, 255], (y * img.width + x) * 4);
      }
  }
  return out;
}

/** The text of every QR code drawn as an image on the PDF's pages. */
export async function pdfQrCodes(bytes: Buffer): Promise<string[]> {
  const { doc, close } = await open(bytes);
  const found: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const ops = await page.getOperatorList();
    for (let i = 0; i < ops.fnArray.length; i++) {
      if (ops.fnArray[i] !== OPS.paintImageXObject) continue;
      const id = ops.argsArray[i][0] as string;
      const img = await new Promise<DecodedImage>((resolve) => page.objs.get(id, resolve));
      const qr = jsQR(toRgba(img), img.width, img.height);
      if (qr) found.push(qr.data);
    }
  }
  await close();
  return found;
}
