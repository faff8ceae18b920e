import type { FastifyReply } from 'fastify';
import type { Html } from './view/html.js';

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
 * Sends a page: HTML, never cached (it is personal), under the page CSP. Its language follows
 * the `lms_lang` cookie or Accept-Language (./i18n), which `Vary` tells any cache between.
 */
export function sendPage(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  return (
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('vary', 'Accept-Language, Cookie')
      .header('content-security-policy', PAGE_CSP)
      .header('x-content-type-options', 'nosniff')
      // Page URLs can carry what belongs to the person (a course, a search, an SSO error reason).
      .header('referrer-policy', 'no-referrer')
      .send(String(page))
  );
}
