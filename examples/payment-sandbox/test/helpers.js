// Shared by the tests: a merchant's receiver of notifications on port 0, and request helpers.
import { createServer } from 'node:http';

export const quiet = { warn() {}, error() {} };

/** A notification receiver: keeps each request; answers `failures` queued statuses first, then 200. */
export async function createReceiver(t) {
  const received = [];
  const failures = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const status = failures.shift() ?? 200;
      received.push({ path: req.url, headers: req.headers, body, json: JSON.parse(body), answered: status });
      res.writeHead(status).end();
    });
  });
  const url = await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));
  t.teardown(() => new Promise((r) => server.close(r)));
  return {
    url,
    received,
    failNext(status, times = 1) {
      for (let i = 0; i < times; i++) failures.push(status);
    },
  };
}

export const basic = (user) => `Basic ${Buffer.from(`${user}:`).toString('base64')}`;

export function api(base, key) {
  return async (method, path, body, headers = {}) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(key ? { authorization: basic(key) } : {}),
        accept: 'application/json',
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, text };
  };
}

/** Submits one of a page's forms as a browser would (urlencoded), without following the redirect. */
export function submitForm(url, fields) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

/** The action of the page's form and the values its select offers, read from the HTML. */
export function readForm(html) {
  const action = html.match(/<form method="post" action="([^"]+)"/)?.[1];
  const options = [...html.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]);
  const buttons = [...html.matchAll(/<button name="action" value="([^"]+)"/g)].map((m) => m[1]);
  return { action, options, buttons };
}
