import { createRequire } from 'node:module';
import { PassThrough, Readable } from 'node:stream';
import type { Db } from '@lms/db';
import type ExcelJS from 'exceljs';
import {
  type PeriodEvaluationSummary,
  periodEvaluationSummary,
  participantCells,
  participantHeader,
  participantPages,
  type ReportPeriod,
  reportSchemes,
} from '../domain/evidence/reports.js';
import { CSV_DIALECTS, csvLine } from '../lib/csv.js';

// A body's report as files (docs/authoring.md, "Reports per body"): the participant list as CSV
// (lib/csv.ts: quoted, formulas defused) and as XLSX (exceljs' streaming writer: every text cell
// a string cell, never a formula, characters XML cannot hold dropped), with the evaluation
// summary as the workbook's second sheet. Both are streams fed page by page from the database:
// 10,000 participants never sit in memory at once.

// exceljs is loaded on the first workbook: it is the heaviest module the LMS has (about 0.8 s of a
// process's start), and most processes never write one.
const require = createRequire(import.meta.url);
let excel: typeof ExcelJS | null = null;

/** Characters XML 1.0 cannot carry (an XLSX is XML): dropped from text cells. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is dropped.
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

/** The participant list as CSV, a stream. */
export function participantCsv(db: Db, courseId: number, period: ReportPeriod): Readable {
  const csv = CSV_DIALECTS.en;
  async function* lines() {
    const schemes = await reportSchemes(db, courseId);
    yield csvLine(participantHeader(schemes), csv);
    for await (const page of participantPages(db, courseId, period)) {
      yield page.map((r) => csvLine(participantCells(r, schemes), csv)).join('');
    }
  }
  return Readable.from(lines());
}

/** The evaluation summary as CSV: one line per item (key, statement, average, answers), then the comments. */
export async function evaluationCsv(db: Db, courseId: number, period: ReportPeriod): Promise<string> {
  const csv = CSV_DIALECTS.en;
  const s = await periodEvaluationSummary(db, courseId, period);
  let out = csvLine(['item', 'statement_id', 'statement_en', 'average', 'answers'], csv);
  for (const i of s.items) out += csvLine([i.key, i.id, i.en, i.average, i.answers], csv);
  out += csvLine([], csv) + csvLine(['responses', s.responses], csv) + csvLine(['comment'], csv);
  for (const c of s.comments) out += csvLine([c], csv);
  return out;
}

type Cell = string | number | null;
const xlsxCell = (v: Cell): Cell => (typeof v === 'string' ? v.replace(NOT_XML, '') : v);

function summarySheet(wb: ExcelJS.stream.xlsx.WorkbookWriter, s: PeriodEvaluationSummary) {
  const ws = wb.addWorksheet('Evaluation');
  ws.addRow(['item', 'statement_id', 'statement_en', 'average', 'answers']).commit();
  for (const i of s.items) ws.addRow([i.key, i.id, i.en, i.average, i.answers].map(xlsxCell)).commit();
  ws.addRow([]).commit();
  ws.addRow(['responses', s.responses]).commit();
  ws.addRow(['comment']).commit();
  for (const c of s.comments) ws.addRow([xlsxCell(c)]).commit();
  ws.commit();
}

/**
 * The participant list and the evaluation summary as one XLSX workbook, a stream. Text goes in as
 * plain string values (exceljs writes a formula only from a `{ formula }` object, which nothing
 * here makes), so `=HYPERLINK(…)` in a name stays text in every spreadsheet.
 */
export function participantXlsx(db: Db, courseId: number, period: ReportPeriod): Readable {
  const out = new PassThrough();
  excel ??= require('exceljs') as typeof ExcelJS;
  const wb = new excel.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: false });
  wb.creator = 'LMS';
  const write = async () => {
    const schemes = await reportSchemes(db, courseId);
    const ws = wb.addWorksheet('Participants');
    ws.addRow(participantHeader(schemes)).commit();
    for await (const page of participantPages(db, courseId, period)) {
      for (const r of page) ws.addRow(participantCells(r, schemes).map(xlsxCell)).commit();
    }
    ws.commit();
    summarySheet(wb, await periodEvaluationSummary(db, courseId, period));
    await wb.commit();
  };
  write().catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
  return out;
}
