// Amounts of money as people type them on the pages, read into the API's decimal text
// ("350000", "99.50"). Indonesians write a dot between thousands and a comma before decimals
// (Rp 350.000,00); the pages read one rule in both languages:
//
// - "Rp", "IDR" and spaces are ignored: "Rp 350.000" and "Rp350.000,00" are 350000.
// - With both separators, the last one is the decimal separator and the other groups thousands:
//   "350.000,50" and "350,000.50" are both 350000.50.
// - A dot alone: before exactly three digits (or repeated) it groups thousands ("350.000",
//   "1.250.000"); before one or two digits it is a decimal point ("99.50", the API's own form).
// - A comma alone before one or two digits is a decimal comma ("99,5").
// - One comma alone before three digits ("350,000") is ambiguous (350 thousand in English, 350
//   with a decimal comma in Indonesian): refused with a message that asks for "350.000" or
//   "350000", never guessed; two or more ("1,250,000") group thousands.
// - Groups of thousands must be whole ("35.00.000" is refused), at most 12 digits before the
//   decimals and 2 after (the API's bound); no sign.

export type AmountRead = { amount: string } | { problem: 'amount' | 'ambiguous' | 'tooBig' };

const GROUPED = /^\d{1,3}(\.\d{3})+$|^\d{1,3}(,\d{3})+$/;

/** What was typed as the API's decimal text, or what is wrong with it. */
export function readAmount(typed: string): AmountRead {
  const s = typed.replace(/^\s*(rp\.?|idr)\s*/i, '').replace(/[\s\u00a0\u202f]/g, '');
  if (!/^[\d.,]+$/.test(s) || !/\d/.test(s)) return { problem: 'amount' };
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  let whole: string;
  let decimals = '';
  if (lastDot >= 0 && lastComma >= 0) {
    const at = Math.max(lastDot, lastComma);
    whole = s.slice(0, at);
    decimals = s.slice(at + 1);
    const grouping = at === lastDot ? ',' : '.';
    if (whole.includes(at === lastDot ? '.' : ',') || !new RegExp(`^\\d{1,3}(\\${grouping}\\d{3})*$`).test(whole))
      return { problem: 'amount' };
  } else if (lastDot >= 0 || lastComma >= 0) {
    const sep = lastDot >= 0 ? '.' : ',';
    const parts = s.split(sep);
    const tail = parts.at(-1) ?? '';
    if (parts.length === 2 && tail.length >= 1 && tail.length <= 2 && parts[0] !== '') {
      whole = parts[0];
      decimals = tail;
    } else if (GROUPED.test(s)) {
      if (sep === ',' && parts.length === 2) return { problem: 'ambiguous' };
      whole = s;
    } else return { problem: 'amount' };
  } else whole = s;
  const digits = whole.replace(/[.,]/g, '').replace(/^0+(?=\d)/, '');
  if (!/^\d+$/.test(digits) || (decimals !== '' && !/^\d{1,2}$/.test(decimals))) return { problem: 'amount' };
  if (digits.length > 12) return { problem: 'tooBig' };
  return { amount: decimals === '' ? digits : `${digits}.${decimals}` };
}

/**
 * A stored decimal amount ("350000.00") as a form shows it to be typed again: grouped the
 * Indonesian way on an Indonesian page ("350.000", "99,50"), plain on an English one ("350000",
 * "99.50"); both read back by readAmount to the same amount.
 */
export function amountForInput(stored: string | null, locale: 'id' | 'en'): string {
  if (stored === null || stored === '') return '';
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(stored);
  if (!match) return stored;
  const [, whole, rawDecimals = ''] = match;
  const decimals = /^0*$/.test(rawDecimals) ? '' : rawDecimals.padEnd(2, '0');
  if (locale === 'en') return decimals === '' ? whole : `${whole}.${decimals}`;
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return decimals === '' ? grouped : `${grouped},${decimals}`;
}
