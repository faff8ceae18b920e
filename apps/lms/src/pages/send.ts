import type { FastifyReply } from 'fastify';
import type { Html } from './view/html.js';
import { VIDEO_FRAME_HOSTS } from './view/markdown.js';

/**
 * Pages load nothing from elsewhere and run nothing inline: their stylesheet and their only
 * script are the LMS's own files (./assets.ts), charts and progress bars are inline SVG sized by
 * attributes, not `style`. The policy makes that a rule the browser enforces: no 'unsafe-inline'
 * for scripts or styles, so an injected `<script>`, `<style>` or `style="…"` does nothing.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * The CSP of a page showing an author's Markdown (pages/view/markdown.ts): the page CSP, plus
 * images over https and frames from the embeddable video hosts only. Scripts and styles stay ours.
 */
export const MARKDOWN_PAGE_CSP = PAGE_CSP.replace("img-src 'self' data:", "img-src 'self' data: https:").concat(
  `; frame-src ${VIDEO_FRAME_HOSTS.map((host) => `https://${host}`).join(' ')}`,
);

/**
 * Sends a page: HTML, never cached (it is personal), under the page CSP (or the one given). Its
 * language follows the `lms_lang` cookie or Accept-Language (./i18n), which `Vary` tells any cache between.
 */
export function sendPage(reply: FastifyReply, page: Html, status = 200, csp = PAGE_CSP): FastifyReply {
  return (
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('vary', 'Accept-Language, Cookie')
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      // Page URLs can carry what belongs to the person (a course, a search, an SSO error reason).
      .header('referrer-policy', 'no-referrer')
      .send(String(page))
  );
}
