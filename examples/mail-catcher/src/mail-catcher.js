// The demo's outbox: an SMTP server that accepts every message (no TLS, any or no login), keeps
// the newest ones in memory, and shows them on a small HTTP page, so the e-mails the LMS sends on
// a laptop can be read without a real mail server. Nothing is relayed anywhere.
//
//   GET /                    the messages, newest first (subject, to, time)
//   GET /messages/:id        one message: its text, its HTML (in a sandboxed iframe), its headers
//   GET /messages/:id/html   the HTML part alone, served with a sandboxing CSP (the iframe's src)
//   GET /api/messages        the same list as JSON, newest first, for tests and scripts
//   DELETE /api/messages     forgets every message
import { createServer } from 'node:http';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Everything a message brings is the sender's text: escaped wherever it goes on the page. */
const esc = (value) => String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);

/**
 * Starts the catcher. Ports 0 pick free ones; the returned URLs say which.
 * @param {{ host?: string, smtpPort?: number, httpPort?: number, keep?: number }} options
 */
export async function createMailCatcher({ host = '127.0.0.1', smtpPort = 1025, httpPort = 1080, keep = 500 } = {}) {
  /** Newest first. */
  const messages = [];
  let nextId = 1;

  const smtp = new SMTPServer({
    // A local catcher: no STARTTLS (the LMS's smtp:// then sends in plain text), any login accepted.
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    onAuth: (_auth, _session, done) => done(null, { user: 'demo' }),
    size: 10 * 1024 * 1024,
    logger: false,
    banner: 'LMS demo mail catcher',
    onData(stream, session, done) {
      simpleParser(stream)
        .then((mail) => {
          messages.unshift({
            id: nextId++,
            receivedAt: new Date().toISOString(),
            envelope: { from: session.envelope.mailFrom?.address ?? '', to: session.envelope.rcptTo.map((r) => r.address) },
            from: mail.from?.text ?? '',
            to: mail.to
              ? [mail.to]
                  .flat()
                  .map((a) => a.text)
                  .join(', ')
              : '',
            subject: mail.subject ?? '',
            messageId: mail.messageId ?? '',
            text: mail.text ?? '',
            html: typeof mail.html === 'string' ? mail.html : '',
            headers: mail.headerLines.map((h) => h.line),
          });
          messages.length = Math.min(messages.length, keep);
          done();
        })
        .catch(done);
    },
  });

  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://catcher');
    const send = (status, type, body, headers = {}) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
      res.end(body);
    };
    const page = (title, body) =>
      send(
        200,
        'text/html; charset=utf-8',
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>${STYLE}</head><body>${body}</body></html>`,
        { 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'" },
      );
    const one = /^\/messages\/(\d+)(\/html)?$/.exec(url.pathname);
    const found = one && messages.find((m) => m.id === Number(one[1]));
    if (req.method === 'GET' && url.pathname === '/api/messages') return send(200, 'application/json', JSON.stringify(messages));
    if (req.method === 'DELETE' && url.pathname === '/api/messages') {
      messages.length = 0;
      return send(204, 'text/plain', '');
    }
    if (req.method !== 'GET') return send(405, 'text/plain', 'method not allowed');
    if (url.pathname === '/') return page('Mail catcher', listPage(messages));
    if (one && !found) return send(404, 'text/plain', 'no such message (the catcher keeps the newest ones, in memory)');
    if (found && one[2])
      // The message's own HTML: no script, no form, no request anywhere but inline images.
      return send(200, 'text/html; charset=utf-8', found.html, {
        'content-security-policy': "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'",
      });
    if (found) return page(found.subject || '(no subject)', messagePage(found));
    return send(404, 'text/plain', 'not found');
  });

  await new Promise((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(smtpPort, host, resolve);
  });
  await new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(httpPort, host, resolve);
  });
  const shown = host.includes(':') ? `[${host}]` : host;
  const smtpUrl = `smtp://${shown}:${smtp.server.address().port}`;
  const pageUrl = `http://${shown}:${http.address().port}/`;
  return {
    smtpUrl,
    pageUrl,
    messages,
    async close() {
      http.closeAllConnections();
      await Promise.all([new Promise((r) => http.close(r)), new Promise((r) => smtp.close(r))]);
    },
  };
}

// A phone's 390 px: long addresses, URLs and header lines break anywhere rather than widen the
// page, and the list's rows stack (subject, then to and time) instead of three narrow columns.
const STYLE = `<meta name="viewport" content="width=device-width, initial-scale=1"><style>
body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1f2933}
h1{overflow-wrap:anywhere}p,td{overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #d9e2ec}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f5f7fa;padding:1rem;border-radius:6px}
iframe{width:100%;height:32rem;border:1px solid #d9e2ec;border-radius:6px;box-sizing:border-box}
@media (max-width:40rem){body{margin:1rem auto}thead{display:none}tr,td{display:block}
td{border:0;padding:.1rem 0}tr{padding:.6rem 0;border-bottom:1px solid #d9e2ec}td:first-child{font-weight:600}}
</style>`;

function listPage(messages) {
  const rows = messages
    .map(
      (m) =>
        `<tr><td><a href="/messages/${m.id}">${esc(m.subject || '(no subject)')}</a></td><td>${esc(m.to)}</td>` +
        `<td><time datetime="${esc(m.receivedAt)}">${esc(m.receivedAt.replace('T', ' ').slice(0, 19))} UTC</time></td></tr>`,
    )
    .join('');
  return (
    '<h1>Mail catcher</h1><p>What the LMS sent, newest first. Nothing here left this machine.</p>' +
    (messages.length
      ? `<table><thead><tr><th>Subject</th><th>To</th><th>Received</th></tr></thead><tbody>${rows}</tbody></table>`
      : '<p>No message yet.</p>')
  );
}

function messagePage(m) {
  return (
    `<p><a href="/">← All messages</a></p><h1>${esc(m.subject || '(no subject)')}</h1>` +
    `<p>From ${esc(m.from)} to ${esc(m.to)}, received ${esc(m.receivedAt)}</p>` +
    (m.html ? `<h2>HTML</h2><iframe sandbox src="/messages/${m.id}/html" title="The HTML part"></iframe>` : '') +
    `<h2>Text</h2><pre>${esc(m.text)}</pre>` +
    `<h2>Headers</h2><pre>${esc(m.headers.join('\n'))}</pre>`
  );
}
