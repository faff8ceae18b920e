import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import { type Html, raw } from './html.js';

/**
 * Chapter content is Markdown, stored as the author wrote it and turned into HTML only here, for
 * a page. Authors (teachers, admins, partners' systems) are not trusted with the learner's
 * browser: markdown-it renders (raw HTML allowed, so a video can be embedded), then sanitize-html
 * keeps only the elements and attributes listed below. No script, no event handler, no `style`,
 * no URL but http(s) and mailto (https only for images and frames), and a frame only from the
 * video hosts of VIDEO_FRAME_HOSTS. The chapter page's CSP (CHAPTER_PAGE_CSP) is the second
 * wall: it loads frames from those hosts only and runs no inline script whatever gets through.
 */

/** The hosts whose players a chapter may embed (`<iframe src="https://…">`); any other frame is removed. */
export const VIDEO_FRAME_HOSTS = ['www.youtube-nocookie.com', 'www.youtube.com', 'player.vimeo.com'] as const;

const renderer = new MarkdownIt({ html: true, linkify: true, typographer: false });

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

/** Markdown as sanitized HTML (a string), for anything that is not a page of ours (tests, exports). */
export function markdownToSafeHtml(markdown: string): string {
  return sanitizeHtml(renderer.render(markdown), SANITIZE);
}

/** Markdown as an Html fragment for a page: the only way Markdown reaches a page. */
export function renderMarkdown(markdown: string): Html {
  return raw(markdownToSafeHtml(markdown));
}
