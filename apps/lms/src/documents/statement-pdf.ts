import type { YearlyStatement } from '../domain/evidence/statement.js';
import { newPdf, pdfBytes, pdfTableRow } from './pdf.js';

/** The statement's words in the member's language (pages/evidence/messages.ts). */
export interface StatementPdfText {
  title: string;
  lang: string;
  member: string;
  membershipId: string;
  body: string;
  printedOn: string;
  headers: { date: string; reference: string; course: string; code: string; units: string };
  total: string;
  none: string;
  day(d: Date): string;
  number(n: number): string;
  issuer: string;
}

/**
 * A member's yearly statement for one scheme as a PDF (A4 portrait, ./pdf.ts fonts): who, the
 * scheme's body, every credit with its accreditation reference, course, date, certificate code
 * and units, and the total. Long tables continue on new pages.
 */
export async function statementPdf(
  who: { name: string; membershipId: string | null },
  s: YearlyStatement,
  text: StatementPdfText,
): Promise<Buffer> {
  const doc = newPdf({ title: text.title, author: text.issuer, subject: `${text.title}: ${who.name}`, lang: text.lang });
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  doc.font('Bold').fontSize(16).text(text.title);
  doc.moveDown(0.4);
  doc.font('Body').fontSize(11);
  doc.text(`${text.member}: ${who.name}`);
  doc.text(`${text.membershipId}: ${who.membershipId ?? '—'}`);
  doc.text(`${text.body}: ${s.body}`);
  doc.fillColor('#555').fontSize(9).text(text.printedOn).fillColor('#000');
  doc.moveDown();
  const cols = [
    { key: 'date', w: 0.11 },
    { key: 'reference', w: 0.19 },
    { key: 'course', w: 0.22 },
    // A certificate code (32 characters) on one line.
    { key: 'code', w: 0.4 },
    { key: 'units', right: true, w: 0.08 },
  ] as const;
  const row = pdfTableRow(doc, cols, { left, width, fontSize: 8 });
  row(
    cols.map((c) => text.headers[c.key]),
    true,
  );
  if (s.lines.length === 0) doc.font('Body').fontSize(10).text(text.none, left);
  for (const l of s.lines)
    row([text.day(l.earnedAt), l.accreditationReference ?? '—', l.courseName, l.certificateCode, text.number(l.amount)]);
  doc.moveDown();
  doc
    .font('Bold')
    .fontSize(12)
    .text(`${text.total}: ${text.number(s.total)} ${s.unit}`, left);
  return pdfBytes(doc);
}
