// The one CSV writer of the LMS (learners.csv, credits.csv): RFC 4180 quoting, and every text cell
// defused against formula injection as the OWASP "CSV Injection" guidance and ASVS 5 (1.2.10) ask.
// See docs/architecture.md, "CSV exports".

/** How a CSV file separates its cells and writes decimals. */
export interface CsvDialect {
  separator: ',' | ';';
  decimal: '.' | ',';
}

/**
 * Excel as Indonesians have it (Windows regional settings id-ID): cells separated by `;`, a
 * decimal comma. Excel elsewhere (and most software): `,` and a decimal dot.
 */
export const CSV_DIALECTS = {
  id: { separator: ';', decimal: ',' },
  en: { separator: ',', decimal: '.' },
} as const satisfies Record<string, CsvDialect>;

/** What a cell holds: text (always quoted and defused), a number (bare, in the dialect's decimal), or nothing. */
export type CsvValue = string | number | null;

/** Characters that make a spreadsheet read what follows as a formula when they start a cell (OWASP, ASVS). */
const TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r', '\n', '\0']);
/**
 * Characters after which some reading of the file starts a new cell: either list separator (Excel
 * reads a file with the separator of the machine's regional settings, whatever we wrote), a tab
 * (pasted, or read as TSV) and a line break.
 */
const CELL_STARTS = new Set([',', ';', '\t', '\r', '\n']);
/** Characters a spreadsheet skips at the start of a cell before it looks for a formula. */
const SKIPPED = new Set([' ', '"']);

/**
 * Text with a `'` put before every formula trigger that could start a cell: at its start, and
 * after a separator of either dialect, a tab or a line break (spaces and quotes between do not
 * help). A file read with the other separator, or a cell split by Text to Columns, then holds
 * `'=HYPERLINK(…)`, which every spreadsheet shows as text.
 */
export function defuseFormulas(text: string): string {
  let out = '';
  let atCellStart = true;
  for (const ch of text) {
    if (atCellStart && TRIGGERS.has(ch)) {
      out += "'";
      atCellStart = false;
    }
    out += ch;
    if (CELL_STARTS.has(ch)) atCellStart = true;
    else if (!SKIPPED.has(ch)) atCellStart = false;
  }
  return out;
}

/**
 * One cell. Text is always quoted (RFC 4180: `"` doubled) and defused, so a separator or a line
 * break inside it never ends the cell for a reader that honours quotes, and nothing in it becomes
 * a formula for one that does not. A number is written bare with the dialect's decimal mark; null
 * is an empty cell.
 */
export function csvCell(value: CsvValue, dialect: CsvDialect): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value).replace('.', dialect.decimal) : '';
  return `"${defuseFormulas(value).replaceAll('"', '""')}"`;
}

/** One record, its line end included (CRLF, RFC 4180). */
export function csvLine(cells: readonly CsvValue[], dialect: CsvDialect): string {
  return `${cells.map((c) => csvCell(c, dialect)).join(dialect.separator)}\r\n`;
}
