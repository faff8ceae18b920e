import type { RenderedMarkdown } from '../../lib/markdown/render.js';
import { type Html, raw } from './html.js';

// Pages show Markdown only through this module: `app.markdown.render()` (lib/markdown/renderer.ts:
// once per content, off the event loop) gives sanitized HTML, made an Html fragment here.
export { MARKDOWN_MAX_NESTING, markdownToSafeHtml, VIDEO_FRAME_HOSTS } from '../../lib/markdown/render.js';

/** A rendered chapter text as a fragment of a page (its HTML was sanitized by lib/markdown/render.ts). */
export function markdownFragment(rendered: RenderedMarkdown): Html {
  return raw(rendered.html);
}
