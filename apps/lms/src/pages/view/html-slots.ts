// Where an interpolation of html`…` stands (html.ts): a small scanner over the template's literal parts.

type AttributeKind = 'url' | 'forbidden' | 'plain';

const URL_ATTRIBUTES = new Set([
  'href',
  'src',
  'srcset',
  'action',
  'formaction',
  'xlink:href',
  'poster',
  'cite',
  'data',
  'ping',
  'manifest',
  'background',
]);

export function attributeKind(name: string): AttributeKind {
  const n = name.toLowerCase();
  if (n.startsWith('on') || n === 'style' || n === 'srcdoc') return 'forbidden';
  return URL_ATTRIBUTES.has(n) ? 'url' : 'plain';
}

/** What a slot accepts. `invalid` carries the reason the template is wrong. */
export type Slot =
  | { kind: 'text' }
  | { kind: 'tag' }
  | { kind: 'attribute'; name: string; attribute: AttributeKind }
  | { kind: 'invalid'; reason: string };

type State =
  | { s: 'text' }
  | { s: 'tag-name'; name: string; closing: boolean }
  | { s: 'in-tag'; tag: string }
  | { s: 'attr-name'; tag: string; name: string }
  | { s: 'after-attr-name'; tag: string; name: string }
  | { s: 'before-value'; tag: string; name: string }
  | { s: 'double-quoted'; tag: string; name: string }
  | { s: 'single-quoted'; tag: string; name: string }
  | { s: 'unquoted'; tag: string; name: string }
  | { s: 'raw-text'; tag: string }
  | { s: 'comment' }
  | { s: 'declaration' };

const RAW_TEXT_ELEMENTS = new Set(['script', 'style']);

function afterTag(tag: string): State {
  return RAW_TEXT_ELEMENTS.has(tag) ? { s: 'raw-text', tag } : { s: 'text' };
}

/** Runs the scanner over one literal part. Interpolated values never change the state. */
function scan(state: State, chunk: string): State {
  let st = state;
  let i = 0;
  while (i < chunk.length) {
    const c = chunk[i];
    switch (st.s) {
      case 'text':
        if (c === '<') {
          if (chunk.startsWith('<!--', i)) {
            st = { s: 'comment' };
            i += 4;
            continue;
          }
          const next = chunk[i + 1];
          // A `<` that ends the literal would make the interpolation after it a tag name.
          if (next === undefined) st = { s: 'tag-name', name: '', closing: false };
          else if (next === '!' || next === '?') st = { s: 'declaration' };
          else if (next === '/') {
            st = { s: 'tag-name', name: '', closing: true };
            i += 1;
          } else if (next !== undefined && /[a-zA-Z]/.test(next)) st = { s: 'tag-name', name: '', closing: false };
        }
        break;
      case 'tag-name':
        if (/[\s/]/.test(c)) st = st.closing ? { s: 'in-tag', tag: '' } : { s: 'in-tag', tag: st.name.toLowerCase() };
        else if (c === '>') st = st.closing ? { s: 'text' } : afterTag(st.name.toLowerCase());
        else st = { ...st, name: st.name + c };
        break;
      case 'in-tag':
        if (c === '>') st = afterTag(st.tag);
        else if (!/[\s/]/.test(c)) st = { s: 'attr-name', tag: st.tag, name: c };
        break;
      case 'attr-name':
        if (c === '=') st = { s: 'before-value', tag: st.tag, name: st.name };
        else if (c === '>') st = afterTag(st.tag);
        else if (/\s/.test(c)) st = { s: 'after-attr-name', tag: st.tag, name: st.name };
        else if (c === '/') st = { s: 'in-tag', tag: st.tag };
        else st = { ...st, name: st.name + c };
        break;
      case 'after-attr-name':
        if (c === '=') st = { s: 'before-value', tag: st.tag, name: st.name };
        else if (c === '>') st = afterTag(st.tag);
        else if (!/\s/.test(c)) st = c === '/' ? { s: 'in-tag', tag: st.tag } : { s: 'attr-name', tag: st.tag, name: c };
        break;
      case 'before-value':
        if (c === '"') st = { s: 'double-quoted', tag: st.tag, name: st.name };
        else if (c === "'") st = { s: 'single-quoted', tag: st.tag, name: st.name };
        else if (c === '>') st = afterTag(st.tag);
        else if (!/\s/.test(c)) st = { s: 'unquoted', tag: st.tag, name: st.name };
        break;
      case 'double-quoted':
        if (c === '"') st = { s: 'in-tag', tag: st.tag };
        break;
      case 'single-quoted':
        if (c === "'") st = { s: 'in-tag', tag: st.tag };
        break;
      case 'unquoted':
        if (/\s/.test(c)) st = { s: 'in-tag', tag: st.tag };
        else if (c === '>') st = afterTag(st.tag);
        break;
      case 'raw-text':
        if (c === '<' && chunk.slice(i + 2, i + 2 + st.tag.length).toLowerCase() === st.tag && chunk[i + 1] === '/') {
          st = { s: 'tag-name', name: '', closing: true };
          i += 1;
        }
        break;
      case 'comment':
        if (chunk.startsWith('-->', i)) {
          st = { s: 'text' };
          i += 3;
          continue;
        }
        break;
      case 'declaration':
        if (c === '>') st = { s: 'text' };
        break;
    }
    i += 1;
  }
  return st;
}

function slotFor(state: State): Slot {
  switch (state.s) {
    case 'text':
      return { kind: 'text' };
    case 'in-tag':
    case 'after-attr-name':
      return { kind: 'tag' };
    case 'double-quoted': {
      const attribute = attributeKind(state.name);
      if (attribute === 'forbidden')
        return { kind: 'invalid', reason: `inside the ${state.name} attribute, which takes nothing from a template` };
      return { kind: 'attribute', name: state.name, attribute };
    }
    case 'single-quoted':
    case 'unquoted':
    case 'before-value':
      return { kind: 'invalid', reason: `in the value of ${state.name} that is not double-quoted (write ${state.name}="\${…}")` };
    case 'raw-text':
      return { kind: 'invalid', reason: `inside <${state.tag}>` };
    case 'comment':
      return { kind: 'invalid', reason: 'inside a comment' };
    default:
      return { kind: 'invalid', reason: 'in a tag or attribute name' };
  }
}

const slotCache = new WeakMap<TemplateStringsArray, Slot[]>();

export function slotsOf(strings: TemplateStringsArray): Slot[] {
  const cached = slotCache.get(strings);
  if (cached) return cached;
  let state: State = { s: 'text' };
  const slots: Slot[] = [];
  strings.forEach((chunk, index) => {
    if (chunk === undefined) throw new TypeError('html: a template with an invalid escape sequence');
    state = scan(state, chunk);
    if (index < strings.length - 1) slots.push(slotFor(state));
  });
  if (state.s !== 'text') {
    // A literal `${…}` marks each interpolation in the message.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder is the text itself, not a template slot.
    const shown = JSON.stringify(strings.join('${…}'));
    throw new TypeError(`html: the template ends inside a tag, attribute, comment or <script>/<style>: ${shown}`);
  }
  slotCache.set(strings, slots);
  return slots;
}

// ---------------------------------------------------------------------------------------------
// Rendering one value into its slot.
