import { type DefaultTreeAdapterMap, parse } from 'parse5';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

/** The attributes that label something for a reader (a screen reader reads them too). */
const LABELLING = ['aria-label', 'placeholder', 'data-label', 'title', 'alt'];

/**
 * What a person reads on a page, piece by piece: its text nodes and labelling attributes, leaving
 * out the elements `skip` names and anything marked as another language than the page's
 * (`<span lang="en">` on an Indonesian page). `attributes`: more attributes to read;
 * `scriptMessages`: also the texts a page gives its script (`data-script` JSON's `messages`).
 */
export function pageWords(
  html: string,
  options: { skip: readonly string[]; attributes?: readonly string[]; scriptMessages?: boolean },
): string[] {
  const out: string[] = [];
  const pageLang = /<html lang="([^"]+)"/.exec(html)?.[1];
  const attributes = [...LABELLING, ...(options.attributes ?? [])];
  const visit = (node: Node) => {
    if (node.nodeName === '#text') out.push((node as DefaultTreeAdapterMap['textNode']).value);
    if (!('tagName' in node)) {
      if ('childNodes' in node) node.childNodes.forEach(visit);
      return;
    }
    const el = node as Element;
    const lang = el.attrs.find((a) => a.name === 'lang')?.value;
    if (options.skip.includes(el.tagName) || (lang && lang !== pageLang)) return;
    for (const a of el.attrs) {
      if (attributes.includes(a.name)) out.push(a.value);
      if (options.scriptMessages && a.name === 'data-script')
        out.push(...Object.values(JSON.parse(a.value).messages as Record<string, string>));
    }
    el.childNodes.forEach(visit);
  };
  visit(parse(html) as Node);
  return out;
}
