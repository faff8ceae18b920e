import { type Certificate, certificateStatus } from '../domain/learning/certificates.js';
import type { Translation } from '../pages/i18n/index.js';
import { newPdf, pdfBytes, qrPng } from './pdf.js';

// The certificate as a PDF (landscape A4), what GET /learn/certificates/{courseId}/pdf sends its
// holder: the member's name, the course, the institution, the date, the credit points with their
// scheme, the certificate's code and status (a revoked or expired certificate says so across the
// top, and in its status line), and the verification URL with its QR code, so that whoever holds
// the paper can check it is still valid. Its words are the page's language (../pages/i18n); it
// never carries the e-mail, and carries the membership number only as the printable page does:
// not at all (the PDF travels further than the page).

const INK = '#1a1a1a';
const MUTED = '#555555';
const FRAME = '#1f4e79';
const ALERT = '#b00020';

export interface CertificatePdfOptions {
  /** The page's language: its words and formats. */
  lang: Pick<Translation, 'locale' | 't' | 'f'>;
  /** PUBLIC_URL: the verification URL is `${publicUrl}/certificates/{code}`. */
  publicUrl: string;
  /** The moment the status is told for (certificateStatus). */
  now: Date;
}

/** The verification URL written in the document and in its QR code. */
export function certificateUrl(publicUrl: string, code: string): string {
  return `${publicUrl.replace(/\/$/, '')}/certificates/${code}`;
}

/**
 * A file name safe in any Content-Disposition and file system: the stem of the language
 * (`sertifikat`, `certificate`), the course name folded to ASCII letters and digits, the first
 * 8 characters of the code; nothing the course's author wrote can break out of the quotes.
 */
export function certificateFileName(cert: Pick<Certificate, 'courseName' | 'code'>, stem: string): string {
  const slug = cert.courseName
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase()
    .slice(0, 48)
    .replace(/-+$/g, '');
  return `${[stem, slug, cert.code.slice(0, 8)].filter((p) => p !== '').join('-')}.pdf`;
}

/** The largest size ≤ `size` (down to `min`) at which `text` fits `width` on one line in `font`. */
function fittingSize(doc: PDFKit.PDFDocument, text: string, font: string, size: number, min: number, width: number): number {
  let s = size;
  doc.font(font);
  while (s > min && doc.fontSize(s).widthOfString(text) > width) s -= 1;
  return s;
}

/**
 * The evidence the certificate was issued on (certificates.evidence), as lines of facts: each
 * accreditation's number and credit, the minutes, the pre/post scores. None on a certificate from
 * before credit evidence.
 */
function evidenceFacts(cert: Certificate, p: Translation['t']['certificateDocs']['pdf']): [string, string][] {
  const e = cert.evidence;
  if (!e) return [];
  const lines: [string, string][] = e.accreditations.map((a) => [
    p.accreditation,
    p.accreditationLine(a.scheme, a.reference, a.value, a.unit),
  ]);
  lines.push([p.time, p.minutes(Math.round(e.minutes), Math.round(e.expectedMinutes))]);
  if (e.preTestScore !== null || e.postTestScore !== null) lines.push([p.scores, p.scoreLine(e.preTestScore, e.postTestScore)]);
  return lines;
}

export async function certificatePdf(cert: Certificate, { lang, publicUrl, now }: CertificatePdfOptions): Promise<Buffer> {
  const { t, f, locale } = lang;
  const p = t.certificateDocs.pdf;
  const s = t.certificateDocs.status;
  const url = certificateUrl(publicUrl, cert.code);
  const status = certificateStatus(cert, now);
  const qr = await qrPng(url, 480);
  const doc = newPdf({
    title: p.documentTitle(cert.courseName),
    author: cert.institutionName ?? 'LMS',
    subject: `${cert.memberName} · ${cert.courseName}`,
    lang: locale,
    layout: 'landscape',
  });
  const W = doc.page.width;
  const H = doc.page.height;
  const left = 70;
  const inner = W - 2 * left;

  // The frame.
  doc
    .lineWidth(3)
    .strokeColor(FRAME)
    .rect(20, 20, W - 40, H - 40)
    .stroke();
  doc
    .lineWidth(0.8)
    .rect(30, 30, W - 60, H - 60)
    .stroke();

  const centred = (text: string, y: number, font: string, size: number, color = INK) =>
    doc.font(font).fontSize(size).fillColor(color).text(text, left, y, { width: inner, align: 'center', lineBreak: false });

  doc.font('Bold').fontSize(30).fillColor(FRAME).text(p.title, left, 58, { width: inner, align: 'center', lineBreak: false });

  // A certificate no longer in force says so before anything else.
  if (status !== 'valid') {
    const banner = status === 'revoked' ? p.revokedBanner(cert.revokedAt) : p.expiredBanner(cert.expiresAt);
    doc.rect(left, 100, inner, 26).fill('#fde7ea');
    centred(banner, 107, 'Bold', 12, ALERT);
  }

  centred(p.statement, 140, 'Body', 13, MUTED);
  centred(cert.memberName, 162, 'Bold', fittingSize(doc, cert.memberName, 'Bold', 28, 14, inner), INK);
  centred(p.completed, 208, 'Body', 13, MUTED);
  // A long course name takes two lines at most, at a size that fits them.
  const courseSize = fittingSize(doc, cert.courseName, 'Bold', 20, 12, inner * 1.9);
  doc
    .font('Bold')
    .fontSize(courseSize)
    .fillColor(INK)
    .text(cert.courseName, left, 232, { width: inner, align: 'center', height: courseSize * 2.6, ellipsis: true });

  // The facts, left; the QR code, right.
  const statusLine =
    status === 'revoked'
      ? `${s.revoked} (${f.day(cert.revokedAt) ?? ''})`
      : status === 'expired'
        ? `${s.expired} (${f.day(cert.expiresAt) ?? ''})`
        : s.valid;
  const facts: [string, string, boolean?][] = [
    [p.issuer, cert.institutionName ?? '—'],
    [p.issuedOn, f.day(cert.issuedAt) ?? ''],
    ...(cert.expiresAt ? [[t.certificateDocs.validUntil, f.day(cert.expiresAt) ?? ''] as [string, string]] : []),
    [t.certificateDocs.creditsLabel, t.certificateDocs.credits(cert.kum, cert.creditScheme)],
    ...evidenceFacts(cert, p),
    [p.code, cert.code],
    [s.label, statusLine, status !== 'valid'],
  ];
  // With the evidence's lines the facts are closer together, so that they end above the URL.
  const step = facts.length > 6 ? 17 : 22;
  let y = facts.length > 6 ? 308 : 320;
  for (const [label, value, alert] of facts) {
    doc
      .font('Body')
      .fontSize(10)
      .fillColor(MUTED)
      .text(label, left + 20, y, { width: 150, lineBreak: false });
    doc
      .font('Bold')
      .fontSize(11)
      .fillColor(alert ? ALERT : INK)
      .text(value, left + 175, y - 1, { width: 330, lineBreak: false, ellipsis: true });
    y += step;
  }
  const qrSize = 130;
  const qrX = W - left - qrSize - 10;
  doc.image(qr, qrX, 305, { width: qrSize, height: qrSize });
  doc
    .font('Body')
    .fontSize(9)
    .fillColor(MUTED)
    .text(p.scan, qrX - 20, 305 + qrSize + 4, { width: qrSize + 40, align: 'center', lineBreak: false });

  // The verification URL, whole on one line, and a link.
  centred(p.verify, H - 100, 'Body', 10, MUTED);
  const urlSize = fittingSize(doc, url, 'Body', 11, 6, inner);
  doc
    .font('Body')
    .fontSize(urlSize)
    .fillColor(FRAME)
    .text(url, left, H - 84, { width: inner, align: 'center', lineBreak: false, link: url });

  return pdfBytes(doc);
}
