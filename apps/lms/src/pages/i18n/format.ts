/**
 * Numbers, money, dates and plurals as a locale writes them, all by `Intl` (nothing formatted by
 * hand): one `Format` per locale and time zone, its Intl objects made once (see ./index.ts).
 * What it returns is plain text, which the `html` template escapes wherever it goes.
 */

/** The plural forms of a message; `#` stands for the number, written for the locale. */
export type PluralForms = { other: string } & Partial<Record<Intl.LDMLPluralRule, string>>;

/** A date, an ISO string (the catalog's), or nothing. */
export type DateInput = Date | string | null | undefined;

/** At most this many currencies keep a formatter (a partner names a course's currency). */
const MONEY_CACHE_MAX = 32;

/** Currencies whose amounts are written without decimals, whatever ISO 4217 says. */
const WHOLE_UNITS = new Set(['IDR']);

/** 9999-12-31T00:00:00Z: an end date from here on means the course does not end. */
const OPEN_END = Date.UTC(9999, 11, 31);

function toDate(value: DateInput): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Indonesia's time zones by their Indonesian names (the pages' default zone is Asia/Jakarta: WIB). */
const INDONESIAN_ZONE_NAMES: Readonly<Record<string, string>> = {
  'Asia/Jakarta': 'WIB',
  'Asia/Pontianak': 'WIB',
  'Asia/Makassar': 'WITA',
  'Asia/Jayapura': 'WIT',
};

export class Format {
  readonly #number: Intl.NumberFormat;
  readonly #percent: Intl.NumberFormat;
  readonly #dateTime: Intl.DateTimeFormat;
  readonly #day: Intl.DateTimeFormat;
  readonly #plural: Intl.PluralRules;
  readonly #list: Intl.ListFormat;
  /** For a currency code Intl refuses: the locale's pattern with a placeholder code, replaced. */
  readonly #unknownCurrency: Intl.NumberFormat;
  readonly #money = new Map<string, Intl.NumberFormat>();
  /**
   * The options of `dateTime()`, for the page's script, which formats the dates it adds in the
   * browser with the same `Intl` options (passed as a data attribute: ../api-keys/index.ts).
   */
  readonly dateTimeOptions: Intl.DateTimeFormatOptions;

  /** `tag`: a BCP 47 locale (`id-ID`); `timeZone`: an IANA zone, in which dates are shown. */
  constructor(
    readonly tag: string,
    readonly timeZone: string,
  ) {
    this.#number = new Intl.NumberFormat(tag, { maximumFractionDigits: 2 });
    this.#percent = new Intl.NumberFormat(tag, { style: 'percent', maximumFractionDigits: 2 });
    // The zone's name (WIB, UTC, GMT+7) with every time: a reader elsewhere knows what it means.
    this.dateTimeOptions = {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZone,
      timeZoneName: 'short',
    };
    this.#dateTime = new Intl.DateTimeFormat(tag, this.dateTimeOptions);
    this.#day = new Intl.DateTimeFormat(tag, { day: 'numeric', month: 'long', year: 'numeric', timeZone });
    this.#plural = new Intl.PluralRules(tag);
    this.#list = new Intl.ListFormat(tag, { style: 'long', type: 'conjunction' });
    this.#unknownCurrency = new Intl.NumberFormat(tag, {
      style: 'currency',
      currency: 'XXX',
      currencyDisplay: 'code',
      minimumFractionDigits: 0,
      maximumFractionDigits: 2,
    });
  }

  number(n: number): string {
    return this.#number.format(n);
  }

  /** A percentage given as 0 to 100 (as the metrics carry it): 33.33 → "33,33%" or "33.33%". */
  percent(n: number): string {
    return this.#percent.format(n / 100);
  }

  /**
   * An amount in any ISO 4217 currency, in the locale's way (`Rp 250.000`, `IDR 250,000`,
   * `US$12.50`); rupiah without decimals, as Indonesians write it. A code Intl refuses (a
   * partner's typo) is shown as it is, where the locale puts a currency code.
   */
  money(amount: number, currency: string): string {
    const code = currency.trim().toUpperCase();
    let format = this.#money.get(code);
    if (!format) {
      try {
        format = new Intl.NumberFormat(this.tag, {
          style: 'currency',
          currency: code,
          ...(WHOLE_UNITS.has(code) ? { minimumFractionDigits: 0, maximumFractionDigits: 0 } : {}),
        });
      } catch {
        return this.#unknownCurrency
          .formatToParts(amount)
          .map((part) => (part.type === 'currency' ? currency : part.value))
          .join('');
      }
      if (this.#money.size < MONEY_CACHE_MAX) this.#money.set(code, format);
    }
    return format.format(amount);
  }

  /** The zone's Indonesian name (WIB, WITA, WIT), or null where Intl's own is used: the pages' script writes dates the same way. */
  get zoneName(): string | null {
    return INDONESIAN_ZONE_NAMES[this.timeZone] ?? null;
  }

  /**
   * A moment, with its time and zone: "22 Nov 2026, 17.05 WIB". Null for no date. Indonesia's
   * zones are named as Indonesians name them in every language (WIB, WITA, WIT), where English
   * Intl writes "GMT+7".
   */
  dateTime(value: DateInput): string | null {
    const d = toDate(value);
    if (!d) return null;
    const zone = INDONESIAN_ZONE_NAMES[this.timeZone];
    if (!zone) return this.#dateTime.format(d);
    return this.#dateTime
      .formatToParts(d)
      .map((part) => (part.type === 'timeZoneName' ? zone : part.value))
      .join('');
  }

  /** A calendar day in the configured zone: "22 November 2026". Null for no date. */
  day(value: DateInput): string | null {
    const d = toDate(value);
    return d && this.#day.format(d);
  }

  /** Two days as one range, as the locale writes it: "1 – 20 Desember 2026". Null if either is missing. */
  dayRange(start: DateInput, end: DateInput): string | null {
    const [a, b] = [toDate(start), toDate(end)];
    // An end on the last day of year 9999 (UTC) is "no end" (the API's latest date-time): no range,
    // so the caller says "from <start>" rather than "1 January 10000" in a zone east of UTC.
    if (!a || !b || b.getTime() >= OPEN_END) return null;
    return b < a ? this.#day.format(a) : this.#day.formatRange(a, b);
  }

  /** "a, b and c" / "a, b dan c". */
  list(items: readonly string[]): string {
    return this.#list.format(items);
  }

  /** The form of `forms` for `n` by the locale's plural rules (Indonesian has only `other`). */
  plural(n: number, forms: PluralForms): string {
    const form = forms[this.#plural.select(n)] ?? forms.other;
    return form.replaceAll('#', this.number(n));
  }
}
