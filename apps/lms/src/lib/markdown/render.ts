import { Parser } from 'htmlparser2';
import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

/**
 * Chapter content is Markdown, stored as the author wrote it and turned into HTML only here.
 * Authors (teachers, admins, partners' systems) are not trusted with the learner's browser:
 * markdown-it renders (raw HTML allowed, so a video can be embedded), then sanitize-html keeps only
 * the elements and attributes listed below. No script, no event handler, no `style`, no URL but
 * http(s) and mailto (https only for images and frames), and a frame only from the video hosts of
 * VIDEO_FRAME_HOSTS. The chapter page's CSP (MARKDOWN_PAGE_CSP) is the second wall: it loads frames
 * from those hosts only and runs no inline script whatever gets through.
 *
 * Bounded in time (docs/architecture.md, "Rendering Markdown"): sanitize-html's parser
 * (htmlparser2) keeps its open elements in an array it shifts at the front, so each tag costs as
 * much as the elements open around it and 100,000 characters of `<a>` took 2.5 s. Elements may
 * nest MARKDOWN_MAX_NESTING deep; deeper, the author's HTML is shown as text (the Markdown around
 * it still formatted), or the whole text as typed when its Markdown alone nests that deep: linear
 * time either way. The rest is linear but not cheap (about 0.1-0.5 s for
 * 100,000 characters): ./renderer.ts runs it off the event loop, once per content.
 */

/** The hosts whose players a chapter may embed (`<iframe src="https://…">`); any other frame is removed. */
export const VIDEO_FRAME_HOSTS = ['www.youtube-nocookie.com', 'www.youtube.com', 'player.vimeo.com'] as const;

/**
 * How deep elements may nest in a chapter's HTML. Markdown's blocks stay within it (markdown-it
 * nests at most 100); raw HTML and emphasis (`*a *a *a … a* a* a*`) can go deeper.
 */
export const MARKDOWN_MAX_NESTING = 256;

const renderer = new MarkdownIt({ html: true, linkify: true, typographer: false });
/** The same Markdown with the author's HTML as text: what a chapter nesting too deep is shown as. */
const htmlAsText = new MarkdownIt({ html: false, linkify: true, typographer: false });

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'em', 'strong', 's', 'del', 'sub', 'sup'],
    ...['ul', 'ol', 'li', 'dl', 'dt', 'dd', 'a', 'img', 'figure', 'figcaption', 'iframe'],
    ...['table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption'],
  ],
  allowedAttributes: {
    // rel, sandbox, referrerpolicy and loading are set by transformTags below (the filter runs after it).
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    iframe: ['src', 'title', 'width', 'height', 'allowfullscreen', 'sandbox', 'referrerpolicy', 'loading'],
    ol: ['start'],
    th: ['colspan', 'rowspan'],
    td: ['colspan', 'rowspan'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['https'], iframe: ['https'] },
  allowProtocolRelative: false,
  allowedIframeHostnames: [...VIDEO_FRAME_HOSTS],
  allowIframeRelativeUrls: false,
  // A frame whose source was refused (another host, another scheme) goes altogether, not as an empty frame.
  exclusiveFilter: (frame) => frame.tag === 'iframe' && !frame.attribs.src,
  // What is removed goes with its content where the content is code or a document of its own.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'template'],
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer nofollow' }),
    iframe: sanitizeHtml.simpleTransform('iframe', {
      sandbox: 'allow-scripts allow-same-origin allow-presentation',
      referrerpolicy: 'strict-origin-when-cross-origin',
      loading: 'lazy',
    }),
  },
};

/**
 * How a chapter's Markdown came out: `rendered`; `too_deep` (its HTML nested deeper than
 * MARKDOWN_MAX_NESTING: shown with the author's HTML as text); `timed_out` or `failed` (the
 * renderer gave up or broke: shown as plain text, see ./renderer.ts).
 */
export type MarkdownOutcome = 'rendered' | 'too_deep' | 'timed_out' | 'failed';

export interface RenderedMarkdown {
  /** Safe HTML for element content. */
  html: string;
  outcome: MarkdownOutcome;
}

const TOO_DEEP = Symbol('too deep');

/**
 * Whether elements in this HTML nest deeper than `limit` as sanitize-html's parser builds them:
 * the same parser (htmlparser2, the same options), counting the elements it opens and closes
 * (implied closes and void elements included), stopped at the first element too deep. While the
 * depth stays within the limit, the parser's cost per tag stays within it too.
 */
export function nestsDeeperThan(html: string, limit: number): boolean {
  let depth = 0;
  const parser = new Parser(
    {
      onopentagname() {
        depth++;
        if (depth > limit) throw TOO_DEEP;
      },
      onclosetag() {
        depth--;
      },
    },
    { decodeEntities: true },
  );
  try {
    parser.end(html);
    return false;
  } catch (err) {
    if (err === TOO_DEEP) return true;
    throw err;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The Markdown as it was typed, escaped, in a `<pre>`: what is shown when rendering gave up. */
export function markdownAsPlainText(markdown: string): string {
  return `<pre>${markdown.replace(/[&<>"']/g, (c) => ESCAPES[c] as string)}</pre>\n`;
}

/** Renders on the calling thread (./renderer.ts decides which thread): linear time in the Markdown's length. */
export function renderMarkdownNow(markdown: string): RenderedMarkdown {
  const html = renderer.render(markdown);
  if (!nestsDeeperThan(html, MARKDOWN_MAX_NESTING)) return { html: sanitizeHtml(html, SANITIZE), outcome: 'rendered' };
  const withHtmlAsText = htmlAsText.render(markdown);
  if (!nestsDeeperThan(withHtmlAsText, MARKDOWN_MAX_NESTING)) return { html: sanitizeHtml(withHtmlAsText, SANITIZE), outcome: 'too_deep' };
  // Deep without the author's HTML too (emphasis nested hundreds deep): the text as it was typed.
  return { html: markdownAsPlainText(markdown), outcome: 'too_deep' };
}

/** Markdown as sanitized HTML (a string), on the calling thread, for anything that is not a page (tests, exports). */
export function markdownToSafeHtml(markdown: string): string {
  return renderMarkdownNow(markdown).html;
}
