import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type PDFDocumentClass from 'pdfkit';
import type QRCodeModule from 'qrcode';

// The PDF documents the LMS writes (a certificate, a member's credit record): pdfkit, with DejaVu
// Sans embedded (subset) so that every name renders, Indonesian ones with their diacritics
// included (é, ñ, ø…), and nothing depends on the fonts of the machine or the reader. The QR
// code is a PNG drawn by `qrcode`. Fonts are read once per process; pdfkit and qrcode are loaded
// on the first document (about 0.4 s of a process's start that most processes never need).

const require = createRequire(import.meta.url);
let pdfkit: typeof PDFDocumentClass | null = null;
let qrcode: typeof QRCodeModule | null = null;
let fonts: { body: Buffer; bold: Buffer } | null = null;
function loadFonts() {
  fonts ??= {
    body: readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')),
    bold: readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')),
  };
  return fonts;
}

export interface PdfInfo {
  title: string;
  author: string;
  subject?: string;
  /** BCP 47 language of the text (id, en). */
  lang: string;
  layout?: 'portrait' | 'landscape';
}

/** A new A4 document with the fonts 'Body' and 'Bold' registered ('Body' selected). */
export function newPdf(info: PdfInfo): PDFKit.PDFDocument {
  const { body, bold } = loadFonts();
  pdfkit ??= require('pdfkit') as typeof PDFDocumentClass;
  const doc = new pdfkit({
    size: 'A4',
    layout: info.layout ?? 'portrait',
    margin: 56,
    lang: info.lang,
    displayTitle: true,
    info: { Title: info.title, Author: info.author, Subject: info.subject ?? info.title, Creator: 'LMS' },
  });
  doc.registerFont('Body', body);
  doc.registerFont('Bold', bold);
  doc.font('Body');
  return doc;
}

/** Ends the document and resolves with its bytes. */
export function pdfBytes(doc: PDFKit.PDFDocument): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.end();
  });
}

/** A QR code of `text` as a PNG (error correction M, a quiet zone of 2 modules). */
export function qrPng(text: string, widthPx = 360): Promise<Buffer> {
  qrcode ??= require('qrcode') as typeof QRCodeModule;
  return qrcode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: widthPx });
}

/** A column of a PDF table: its key, its share of the text width, and whether it aligns right (figures). */
export interface PdfColumn<K extends string = string> {
  key: K;
  w: number;
  right?: boolean;
}

/**
 * A table row writer for `doc` (the credit record and the yearly statement): each cell wraps in its
 * column, the row is as tall as its tallest cell, and a row that would not fit starts a new page.
 */
export function pdfTableRow(doc: PDFKit.PDFDocument, cols: readonly PdfColumn[], o: { left: number; width: number; fontSize: number }) {
  return (cells: string[], bold = false) => {
    doc.font(bold ? 'Bold' : 'Body').fontSize(o.fontSize);
    const h = Math.max(...cells.map((c, i) => doc.heightOfString(c, { width: cols[i].w * o.width - 6 }))) + 4;
    if (doc.y + h > doc.page.height - doc.page.margins.bottom) doc.addPage();
    const y = doc.y;
    let x = o.left;
    cells.forEach((c, i) => {
      doc.text(c, x, y, { width: cols[i].w * o.width - 6, align: cols[i].right ? 'right' : 'left' });
      x += cols[i].w * o.width;
    });
    doc.x = o.left;
    doc.y = y + h;
  };
}
