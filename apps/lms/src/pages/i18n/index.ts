import type { FastifyInstance, FastifyRequest } from 'fastify';
import { en } from './en.js';
import { Format } from './format.js';
import { id, type Messages } from './id.js';

export type { Messages } from './id.js';
export { Format } from './format.js';

/**
 * The languages of the pages: each one's catalog, the locale its numbers, money and dates follow
 * (Indonesian as written in Indonesia; English with day-month-year and a 24-hour clock, as
 * Indonesian readers of English expect), and its name in itself, for the language switch.
 */
export const LOCALES = {
  id: { tag: 'id-ID', name: 'Bahasa Indonesia', messages: id },
  en: { tag: 'en-GB', name: 'English', messages: en },
} as const satisfies Record<string, { tag: string; name: string; messages: (f: Format) => Messages }>;

export type Locale = keyof typeof LOCALES;

/** Most members and teachers are Indonesian: their language unless they or their browser ask otherwise. */
export const DEFAULT_LOCALE: Locale = 'id';

/** The cookie of an explicit choice (the language switch, ../language.ts): it wins over Accept-Language. */
export const LANGUAGE_COOKIE = 'lms_lang';

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && Object.hasOwn(LOCALES, value);
}

/** The language of one tag of Accept-Language: `id`, `id-ID` and the old `in` are Indonesian, `en-*` English. */
function localeOfTag(tag: string): Locale | null {
  const primary = tag.split('-')[0];
  if (primary === 'id' || primary === 'in') return 'id';
  if (primary === 'en') return 'en';
  return null;
}

const QVALUE = /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/;

/**
 * The language the browser prefers among ours (RFC 9110 §12.5.4): the highest q-value wins, the
 * first listed among equals; `q=0` means "not this one"; `*` stands for any, so for the default.
 * Null when it names none of ours (or there is no header).
 */
export function localeFromAcceptLanguage(header: string | undefined): Locale | null {
  if (!header) return null;
  let best: Locale | null = null;
  let bestQ = 0;
  for (const item of header.split(',')) {
    const [rawTag = '', ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    let q = 1;
    for (const param of params) {
      if (!param.startsWith('q=')) continue;
      q = QVALUE.test(param) ? Number(param.slice(2)) : 0; // a malformed weight: ignore the item
    }
    const locale = rawTag === '*' ? DEFAULT_LOCALE : localeOfTag(rawTag);
    if (locale && q > bestQ) {
      best = locale;
      bestQ = q;
    }
  }
  return best;
}

/** The language of a page request: the person's explicit choice, else their browser's, else Indonesian. */
export function requestLocale(request: FastifyRequest): Locale {
  const chosen = request.cookies?.[LANGUAGE_COOKIE];
  if (isLocale(chosen)) return chosen;
  const header = request.headers['accept-language'];
  return localeFromAcceptLanguage(typeof header === 'string' ? header : undefined) ?? DEFAULT_LOCALE;
}

/**
 * A message with `{name}` placeholders filled in: the style of the messages the pages hand their
 * script (which fills them the same way), for the few the server writes too.
 */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (placeholder, name: string) => (Object.hasOwn(values, name) ? values[name] : placeholder));
}

/** A language ready to write pages: its messages and its formats, in the configured time zone. */
export interface Translation {
  locale: Locale;
  /** The BCP 47 locale for `lang`-independent formatting (`id-ID`, `en-GB`). */
  tag: string;
  t: Messages;
  f: Format;
}

const translations = new Map<string, Translation>();

/** The translation of `locale` in `timeZone`, made once (Intl objects are costly to build). */
export function translation(locale: Locale, timeZone: string): Translation {
  const key = `${locale} ${timeZone}`;
  let found = translations.get(key);
  if (!found) {
    const { tag, messages } = LOCALES[locale];
    const f = new Format(tag, timeZone);
    found = { locale, tag, t: messages(f), f };
    translations.set(key, found);
  }
  return found;
}

/** What a page needs to speak to the person: their language, and where they are (for the language switch). */
export interface PageContext extends Translation {
  /** The path and query of this request: where the language switch brings the person back. */
  path: string;
}

export function pageContext(app: FastifyInstance, request: FastifyRequest): PageContext {
  return { ...translation(requestLocale(request), app.config.PAGES_TIME_ZONE), path: request.url };
}
