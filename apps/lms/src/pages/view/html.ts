import { attributeKind, type Slot, slotsOf } from './html-slots.js';
/**
 * HTML that escapes itself: the `html` tagged template and the few values it lets through.
 *
 * Every interpolation of `html\`…\`` is escaped unless it is a value this module made:
 * - a string or number is text: `& < > " '` become `&amp; &lt; &gt; &quot; &#39;`;
 * - an `Html` (another `html\`…\``, `join()`, or the explicit `raw()`) goes in as it is;
 * - an array is its items one after another, no separator (use `join()` for one);
 * - `null`, `undefined` and `false` render nothing, so `cond && html\`…\`` reads naturally
 *   (mind that `0 && …` is `0`, which renders "0");
 * - `true`, objects and functions are refused with a TypeError: they have no text worth showing.
 *
 * Where an interpolation stands is checked as well, from the template's literal parts (once per
 * template, cached): a template that interpolates somewhere escaping cannot protect throws the
 * first time it renders, which every page test does.
 * - element content (text, also inside SVG `<text>`, `<title>`, `<desc>`): the values above;
 * - a double-quoted attribute value: a string or number, escaped (a single quote is escaped too,
 *   but single-quoted and unquoted attribute values are refused: write `attr="${value}"`);
 * - a URL attribute (`href`, `src`, `action`, …): only a `Url`, which only `href()` makes, so a
 *   link can only ever point at a path of this site, never at `javascript:` or another host
 *   (`mailto()` and, for e-mails, which have no site, `absoluteUrl()`: http(s) only);
 * - event-handler (`on…`), `style` and `srcdoc` attributes: nothing (scripts and styles live in
 *   our own files, see ../client);
 * - between the attributes of a tag: only an `Attr` from `attr()` (e.g. `${attr('selected', on)}`);
 * - a tag or attribute name, inside `<script>`, `<style>` or a comment: nothing.
 * A template must also end where it began, in element content (no half-open tag or attribute),
 * so that an `Html` is always a whole fragment wherever it is put.
 */

/** The key only this module holds: nothing else can construct an Html, an Attr or a Url. */
const brand = Symbol('html');

/**
 * What Html, Attr and Url share: their text, which only this module's key can set. `kind` exists
 * only for the compiler, so that one of them is never taken for another.
 */
abstract class Branded<K extends 'html' | 'attr' | 'url'> {
  declare readonly kind: K;
  readonly #text: string;
  constructor(text: string, key: symbol, madeBy: string) {
    if (key !== brand) throw new TypeError(`${new.target.name} is made by ${madeBy}, not with new`);
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

/** A fragment of HTML that is safe to put in element content as it is. */
export class Html extends Branded<'html'> {
  constructor(text: string, key: symbol) {
    super(text, key, 'html``, join() or raw()');
  }
}

/** One attribute (` name="value"` or a bare ` name`), or nothing: for a slot between attributes. */
export class Attr extends Branded<'attr'> {
  constructor(text: string, key: symbol) {
    super(text, key, 'attr()');
  }
}

/** A path of this site (with an optional query), as `href()` built it, or a `mailto()` link: the only things a URL attribute takes. */
export class Url extends Branded<'url'> {
  constructor(text: string, key: symbol) {
    super(text, key, 'href()');
  }
  /** The same path with these query parameters (empty values and undefined are left out). */
  withQuery(params: Record<string, string | number | undefined> | URLSearchParams): Url {
    const query = params instanceof URLSearchParams ? new URLSearchParams(params) : new URLSearchParams();
    if (!(params instanceof URLSearchParams)) {
      for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') query.set(name, String(value));
    }
    const text = query.size ? `${this.toString().split('?')[0]}?${query}` : this.toString();
    return new Url(text, brand);
  }
  /** The same URL pointing at an element of the page (`#id`; letters, digits, `-` and `_` only). */
  withFragment(id: string): Url {
    if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(id)) throw new TypeError(`withFragment: not an element id: ${JSON.stringify(id)}`);
    return new Url(`${this.toString().split('#')[0]}#${id}`, brand);
  }
}

/** What an interpolation of `html` may be (the position decides which of these it accepts). */
export type HtmlValue = Html | Attr | Url | string | number | null | undefined | false | readonly HtmlValue[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/**
 * Trusted HTML, inserted as it is. Only for text that is provably ours (never for anything that
 * came from a request, the database or a partner); every use is a claim a reviewer must check.
 */
export function raw(trusted: string): Html {
  return new Html(trusted, brand);
}

/** The items (each escaped unless already Html) with `separator` (text, escaped) between them. */
export function join(items: readonly (Html | string | number)[], separator: Html | string): Html {
  const sep = separator instanceof Html ? String(separator) : escapeText(separator);
  return new Html(items.map((item) => renderText(item)).join(sep), brand);
}

const ATTR_NAME = /^[a-z][a-z0-9-]*(:[a-z][a-z0-9-]*)?$/;

/**
 * One attribute for a slot between attributes: `true` → ` name`, a string or number →
 * ` name="value"` (escaped), `false`/`null`/`undefined` → nothing. The name is checked like
 * a template's own: no event handler or style, and a URL attribute takes only a `Url`.
 */
export function attr(name: string, value: string | number | boolean | Url | null | undefined): Attr {
  if (!ATTR_NAME.test(name)) throw new TypeError(`attr: not an attribute name: ${JSON.stringify(name)}`);
  const kind = attributeKind(name);
  if (kind === 'forbidden') throw new TypeError(`attr: the ${name} attribute takes no value from a template`);
  if (value === false || value === null || value === undefined) return new Attr('', brand);
  if (value === true) return new Attr(` ${name}`, brand);
  if (kind === 'url' && !(value instanceof Url)) throw new TypeError(`attr: the ${name} attribute takes only a Url from href()`);
  return new Attr(` ${name}="${escapeText(String(value))}"`, brand);
}

/**
 * A `mailto:` link to one address (a person's e-mail from the database): only a plain address
 * (no spaces, quotes, angle brackets, `?` or `&`, so no header or second recipient), percent-
 * encoded; null for anything else, and the caller shows the name without a link.
 */
export function mailto(address: string): Url | null {
  if (address.length > 254 || !/^[A-Za-z0-9.!#$%*+/=^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(address)) return null;
  return new Url(`mailto:${encodeURI(address)}`, brand);
}

/**
 * An absolute http(s) URL, for what is read away from this site (an e-mail's links: a mail has no
 * site its paths are relative to). The URLs are ours (made from PUBLIC_URL); anything but http
 * and https (`javascript:`, `data:`) is refused with a TypeError.
 */
export function absoluteUrl(url: string): Url {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`absoluteUrl: not a URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new TypeError(`absoluteUrl: not an http(s) URL: ${JSON.stringify(url)}`);
  return new Url(parsed.href, brand);
}

/** A path segment: any text, percent-encoded, so it can never end the path or start a scheme. */
type Segment = string | number;

/**
 * A link to a path of this site: `base` is one of our own absolute paths (a literal, starting with
 * a single `/`), each segment is appended percent-encoded: `href('/dashboard/courses', id)`.
 * Nothing from outside can make it point at `javascript:`, `data:` or another host.
 */
export function href(base: string, ...segments: Segment[]): Url {
  if (!/^\/(?![/\\])[A-Za-z0-9\-._~/]*$/.test(base)) {
    throw new TypeError(`href: not a path of this site: ${JSON.stringify(base)}`);
  }
  const path = [base.replace(/\/$/, '') || '', ...segments.map((s) => encodeURIComponent(String(s)))].join('/');
  return new Url(segments.length ? path : base, brand);
}

function describe(value: unknown): string {
  if (value instanceof Html) return 'Html';
  if (value instanceof Attr) return 'an Attr';
  if (value instanceof Url) return 'a Url';
  if (Array.isArray(value)) return 'an array';
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : `a ${typeof value} (${String(value)})`;
}

function renderText(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (typeof value === 'string') return escapeText(value);
  if (typeof value === 'number') return escapeText(String(value));
  if (value instanceof Html) return String(value);
  if (value instanceof Url) return escapeText(String(value));
  if (Array.isArray(value)) return value.map(renderText).join('');
  throw new TypeError(`html: element content takes text, numbers, Html or arrays of them, not ${describe(value)}`);
}

function renderAttributeValue(value: unknown, slot: Extract<Slot, { kind: 'attribute' }>): string {
  if (slot.attribute === 'url') {
    if (value instanceof Url) return escapeText(String(value));
    throw new TypeError(`html: the ${slot.name} attribute takes only a Url from href(), not ${describe(value)}`);
  }
  if (value === null || value === undefined || value === false) return '';
  if (typeof value === 'string' || typeof value === 'number' || value instanceof Url) return escapeText(String(value));
  throw new TypeError(`html: the value of ${slot.name}="…" takes text or a number, not ${describe(value)}`);
}

function renderTag(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Attr) return String(value);
  if (Array.isArray(value)) return value.map(renderTag).join('');
  throw new TypeError(`html: between attributes only attr(…) goes, not ${describe(value)}`);
}

function render(value: unknown, slot: Slot): string {
  switch (slot.kind) {
    case 'text':
      return renderText(value);
    case 'attribute':
      return renderAttributeValue(value, slot);
    case 'tag':
      return renderTag(value);
    case 'invalid':
      throw new TypeError(`html: cannot interpolate ${slot.reason}`);
  }
}

/** The tagged template: `html\`<p>${text}</p>\`` is an `Html` in which `text` is escaped. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  const slots = slotsOf(strings);
  let out = strings[0];
  for (let i = 0; i < values.length; i += 1) out += render(values[i], slots[i]) + strings[i + 1];
  return new Html(out, brand);
}
