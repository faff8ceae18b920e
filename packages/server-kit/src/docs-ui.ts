/**
 * The Content-Security-Policy of the API docs UI (/docs of both apps, @fastify/swagger-ui): its
 * scripts, styles and fonts are files it serves itself, it reads the document from /docs/json and
 * "Try it out" calls the same origin. Inline styles are allowed because Swagger UI sets them;
 * inline and foreign scripts are not, nor framing.
 */
export const DOCS_UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
