import type { MemberCredits } from '../domain/learning/credits.js';
import { newPdf, pdfBytes, pdfTableRow } from './pdf.js';

/** What the credit record PDF says, in the member's language (the pages' catalog writes it). */
export interface CreditsPdfText {
  title: string;
  lang: string;
  member: string;
  membershipId: string;
  printedOn: string;
  headers: { date: string; course: string; scheme: string; amount: string; status: string };
  perYear: string;
  rolling: string;
  targets: string;
  none: string;
  day(d: Date): string;
  number(n: number): string;
  status(r: MemberCredits['records'][number]): string;
  lastYears(years: number): string;
  progress(t: MemberCredits['targets'][number]): string;
  issuer: string;
}

/**
 * A member's credit record as a PDF for their association: their name and membership number
 * (their own document: nothing here is shown to anyone else), every record with its date,
 * course, scheme, amount and status, the totals per year and per rolling period, the targets.
 * A4 portrait, DejaVu Sans (./pdf.ts); long tables continue on new pages.
 */
export async function creditsPdf(
  who: { name: string; membershipId: string | null },
  credits: MemberCredits,
  text: CreditsPdfText,
): Promise<Buffer> {
  const doc = newPdf({ title: text.title, author: text.issuer, subject: `${text.title}: ${who.name}`, lang: text.lang });
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  doc.font('Bold').fontSize(18).text(text.title, { align: 'left' });
  doc.moveDown(0.5);
  doc.font('Body').fontSize(11);
  doc.text(`${text.member}: ${who.name}`);
  doc.text(`${text.membershipId}: ${who.membershipId ?? '—'}`);
  doc.fillColor('#555').fontSize(9).text(text.printedOn).fillColor('#000');
  doc.moveDown();

  // The records: date, course, scheme, amount, status.
  const cols = [
    { key: 'date', w: 0.16 },
    { key: 'course', w: 0.4 },
    { key: 'scheme', w: 0.1 },
    { key: 'amount', right: true, w: 0.1 },
    { key: 'status', w: 0.24 },
  ] as const;
  const row = pdfTableRow(doc, cols, { left, width, fontSize: 9 });
  row(
    cols.map((c) => text.headers[c.key]),
    true,
  );
  if (credits.records.length === 0) {
    doc.font('Body').fontSize(10).text(text.none, left);
  }
  for (const r of credits.records) {
    row([text.day(r.earnedAt), r.courseName, r.scheme, text.number(r.amount), text.status(r)]);
  }
  doc.moveDown();

  doc.font('Bold').fontSize(12).text(text.perYear, left);
  doc.font('Body').fontSize(10);
  for (const t of credits.yearTotals) doc.text(`${t.year} · ${t.scheme}: ${text.number(t.amount)}`);
  doc.moveDown(0.5);
  doc.font('Bold').fontSize(12).text(text.rolling, left);
  doc.font('Body').fontSize(10);
  for (const t of credits.rollingTotals) doc.text(`${t.scheme}, ${text.lastYears(t.years)}: ${text.number(t.amount)}`);
  if (credits.targets.length > 0) {
    doc.moveDown(0.5);
    doc.font('Bold').fontSize(12).text(text.targets, left);
    doc.font('Body').fontSize(10);
    for (const t of credits.targets) doc.text(`${t.partner}: ${text.progress(t)}`);
  }
  return pdfBytes(doc);
}
