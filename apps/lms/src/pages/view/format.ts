/**
 * Numbers, money, dates and labels as the pages write them: plain text, which the `html`
 * template escapes wherever it goes. One home for the words that are not in a template, so that
 * a message catalog can take them over.
 */

const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

export function formatNumber(n: number): string {
  return numberFormat.format(n);
}

export function formatMoney(n: number, currency = 'IDR'): string {
  return currency === 'IDR' ? `Rp ${numberFormat.format(n)}` : `${currency} ${numberFormat.format(n)}`;
}

export function formatDate(iso: string | Date | null): string {
  if (!iso) return '—';
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A calendar day, for course dates. */
export function formatDay(iso: string | Date | null): string {
  if (!iso) return '—';
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  return d.toISOString().slice(0, 10);
}

/** "1 chapter", "3 chapters". */
export function plural(n: number, word: string): string {
  return `${formatNumber(n)} ${word}${n === 1 ? '' : 's'}`;
}

export const STATUS_LABELS: Record<string, string> = { 'not-started': 'Not started', 'in-progress': 'In progress', completed: 'Completed' };
export const TIER_LABELS: Record<string, string> = { anggota: 'Anggota (member)', umum: 'Umum (general public)', mahasiswa: 'Mahasiswa (student)' };
