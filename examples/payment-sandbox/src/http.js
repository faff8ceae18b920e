// Small HTTP helpers shared by the two providers' handlers.
const MAX_BODY_BYTES = 64 * 1024;

/** The raw body as text; null when it is larger than 64 KiB. */
export function readBody(req, limit = MAX_BODY_BYTES) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    });
    req.on('end', () => resolve(size > limit ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** JSON or form body as an object; undefined when it does not parse. */
export function parseBody(req, raw) {
  if (!raw) return {};
  if (String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(raw));
  }
  try {
    const value = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function sendJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

export function sendHtml(res, status, html) {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action *",
  });
  res.end(html);
}

export function redirect(res, location) {
  res.writeHead(303, { location, 'cache-control': 'no-store' });
  res.end();
}

/** The user part of an `Authorization: Basic` header (both providers put the key there, password empty). */
export function basicUser(req) {
  const header = String(req.headers.authorization ?? '');
  if (!header.startsWith('Basic ')) return null;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? decoded : decoded.slice(0, colon);
}

export function escapeHtml(value) {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

/** "2026-11-28 22:05:00", Jakarta time (UTC+7, no daylight saving), as Midtrans writes times. */
export function jakartaTime(ms = Date.now()) {
  return new Date(ms + 7 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
}

/** The base URL the caller reached us at (pages are built on it, as the providers' hosts are). */
export function baseUrl(req, publicUrl) {
  return publicUrl ?? `http://${req.headers.host ?? '127.0.0.1'}`;
}

/** Appends query parameters to a URL given by the merchant (kept as is when it does not parse). */
export function withQuery(url, params) {
  try {
    const u = new URL(url);
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    return u.toString();
  } catch {
    return url;
  }
}
