// Short human-readable lines for the one-command start on a terminal, from the apps' pino JSON
// lines (the apps themselves always write JSON: files, pipes and log collectors read that).
// A few lines of our own instead of pino-pretty: no extra dependency for a start script.

const LEVELS = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const COLORS = { 10: 90, 20: 90, 30: 32, 40: 33, 50: 31, 60: 31 };

/** What each request in flight asked, by request id: one line per request, at its end. */
const asked = new Map();

/**
 * `12:00:01 lms     INFO  request completed GET /api/courses 200 3ms`; other lines as they are.
 * null for a line not worth its own (Fastify's "incoming request": said with the completion).
 */
export function formatLine(name, line, { color = process.stdout.isTTY === true } = {}) {
  const tag = name.padEnd(7);
  let entry;
  try {
    entry = JSON.parse(line);
  } catch {
    return `${tag} ${line}`;
  }
  if (typeof entry !== 'object' || entry === null || typeof entry.level !== 'number') return `${tag} ${line}`;
  if (entry.msg === 'incoming request' && entry.req && entry.reqId) {
    asked.set(entry.reqId, `${entry.req.method} ${entry.req.url}`);
    return null;
  }
  const request = entry.reqId && !entry.req ? asked.get(entry.reqId) : undefined;
  if (entry.msg === 'request completed') asked.delete(entry.reqId);
  const time = new Date(entry.time ?? Date.now()).toTimeString().slice(0, 8);
  const level = LEVELS[entry.level] ?? String(entry.level);
  const parts = [entry.msg ?? ''];
  if (entry.req) parts.push(`${entry.req.method} ${entry.req.url}`);
  else if (request) parts.push(request);
  if (entry.res?.statusCode !== undefined) parts.push(String(entry.res.statusCode));
  if (entry.url && !entry.req) parts.push(entry.url);
  if (entry.statusCode !== undefined && !entry.res) parts.push(String(entry.statusCode));
  if (typeof entry.responseTime === 'number') parts.push(`${Math.round(entry.responseTime)}ms`);
  if (entry.err?.message) parts.push(`— ${entry.err.type ?? 'Error'}: ${entry.err.message}`);
  const levelText = color ? `\x1b[${COLORS[entry.level] ?? 0}m${level}\x1b[0m` : level;
  return `${time} ${tag} ${levelText} ${parts.filter(Boolean).join(' ')}`;
}
