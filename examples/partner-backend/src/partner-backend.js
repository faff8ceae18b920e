// A partner's backend, as small as it can be: it owns an RSA key pair, publishes the public half
// as a JWKS, and signs a member into the LMS by calling the gateway from the server (never from
// the browser) with redirects disabled, then handing the gateway's Location to the browser.
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { calculateJwkThumbprint, createRemoteJWKSet, exportJWK, exportPKCS8, generateKeyPair, importPKCS8, jwtVerify, SignJWT } from 'jose';
import { Webhook } from 'standardwebhooks';

const AUDIENCE = 'terang.ai';
const TIERS = new Set(['member', 'umum', 'mahasiswa']);

/**
 * Loads the signing key from `dataDir/signing-key.json`, or creates and saves one on first run.
 * The private key never leaves this process; only the public JWK is served.
 */
export async function loadOrCreateSigningKey(dataDir) {
  const file = join(dataDir, 'signing-key.json');
  try {
    const saved = JSON.parse(await readFile(file, 'utf8'));
    const privateKey = await importPKCS8(saved.privateKeyPem, 'RS256', { extractable: true });
    return { kid: saved.kid, privateKey, publicJwk: saved.publicJwk, created: false };
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
  const { privateKey, publicKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(publicKey);
  // The kid is the key's thumbprint: stable for the key, different for the next one (rotation).
  const kid = await calculateJwkThumbprint(jwk);
  const publicJwk = { kty: jwk.kty, n: jwk.n, e: jwk.e, kid, use: 'sig', alg: 'RS256' };
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, JSON.stringify({ kid, privateKeyPem: await exportPKCS8(privateKey), publicJwk }, null, 2), { mode: 0o600 });
  return { kid, privateKey, publicJwk, created: true };
}

/** Signs the SSO token of one member: RS256, typ JWT, our kid, 2 minutes of life, a fresh jti. */
export async function signSsoToken(key, issuer, member, ttlSeconds = 120) {
  const now = Math.floor(Date.now() / 1000);
  const claims = { email: member.email, membershipId: member.membershipId };
  if (member.name) claims.name = member.name;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: key.kid })
    .setIssuer(issuer)
    .setAudience(AUDIENCE)
    .setSubject(member.tier)
    .setIssuedAt(now)
    .setExpirationTime(now + Math.min(ttlSeconds, 300))
    .setJti(randomUUID())
    .sign(key.privateKey);
}

/**
 * Asks the gateway where to send the browser. `redirect: 'manual'` is the whole point: if this
 * server followed the 302, the LMS would set the session cookie on THIS server, not on the
 * member's browser, and the member would not be signed in.
 */
export async function askGateway(gatewayUrl, token) {
  const url = new URL('/sso/verify', gatewayUrl);
  url.searchParams.set('token', token);
  const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(5_000) });
  const location = res.headers.get('location');
  if (res.status >= 300 && res.status < 400 && location) return { ok: true, location };
  const text = await res.text();
  let error = text;
  try {
    error = JSON.parse(text).error ?? text;
  } catch {}
  return { ok: false, status: res.status, error };
}

const escapeHtml = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

function html(res, status, title, body) {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}label{display:block;margin:.5rem 0}</style>
</head><body>${body}</body></html>`);
}

const FORM = `<h1>Demo partner: sign a member into the LMS</h1>
<p>In a real partner site this page is behind your own login, and the member's details come from your records, never from the browser.</p>
<form method="get" action="/login">
<label>E-mail <input name="email" type="email" required value="member@demo-partner.local"></label>
<label>Name <input name="name" value="Demo Member"></label>
<label>Membership ID <input name="membershipId" required value="DEMO-0001"></label>
<label>Tier <select name="tier"><option>member</option><option>umum</option><option>mahasiswa</option></select></label>
<button type="submit">Go to the courses</button>
</form>`;

/** Reads a request body, at most `limit` bytes (more: null). */
function readBody(req, limit = 256 * 1024) {
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

function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

function eventsSection(events) {
  if (events.length === 0) return '<h2>Events from the LMS</h2><p>None yet: enrol in a course, finish one, get a certificate.</p>';
  const rows = events
    .map(
      (e) =>
        `<li><strong>${escapeHtml(e.type)}</strong> ${escapeHtml(e.timestamp)} member <code>${escapeHtml(e.data?.member?.membershipId ?? '?')}</code>` +
        `${e.data?.course ? ` course ${escapeHtml(e.data.course.name)}` : ''}${e.data?.certificate?.kum != null ? `, KUM ${escapeHtml(e.data.certificate.kum)}` : ''}` +
        ` <small>(${escapeHtml(e.id)})</small></li>`,
    )
    .join('');
  return `<h2>Events from the LMS (signature verified)</h2><ul>${rows}</ul>`;
}

/**
 * The partner backend as a Node HTTP server (not yet listening):
 *   GET /.well-known/jwks.json  the public key(s), for the LMS
 *   GET /                       a form to try it, and the events the LMS sent
 *   POST /webhooks              the LMS's events (Standard Webhooks, verified with `webhookSecret`)
 *   POST /members/status        the member check: {"active": true|false} (the LMS's token verified)
 *   GET /login?email=&name=&membershipId=&tier=member
 *                               signs a token, asks the gateway, 302s the browser to the LMS
 */
export async function createPartnerBackend({
  dataDir,
  issuer = 'demo-partner.local',
  gatewayUrl = 'http://localhost:3001',
  lmsUrl = 'http://localhost:3000',
  webhookSecret,
  log = console,
}) {
  // Events the LMS sent (newest first, deduplicated by webhook-id) and the members this demo treats
  // as inactive in its records (any membershipId starting with INACTIVE).
  const events = [];
  const seen = new Set();
  const webhook = webhookSecret ? new Webhook(webhookSecret) : null;
  const lmsKeys = createRemoteJWKSet(new URL('/.well-known/jwks.json', lmsUrl));
  // The member-check tokens answered so far (jti -> exp, seconds), kept until they expire: each
  // token is answered once, so a replayed one (from a log, a proxy) is refused.
  const answeredJtis = new Map();
  const key = await loadOrCreateSigningKey(dataDir);
  if (key.created) log.info?.(`created a new signing key (kid ${key.kid}) in ${dataDir}`);

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://partner.local');
    try {
      if (req.method === 'GET' && url.pathname === '/.well-known/jwks.json') {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' });
        return res.end(JSON.stringify({ keys: [key.publicJwk] }));
      }
      if (req.method === 'GET' && url.pathname === '/') return html(res, 200, 'Demo partner', FORM + eventsSection(events));
      if (req.method === 'POST' && url.pathname === '/webhooks') {
        // Standard Webhooks: verify the signature (and the timestamp's freshness) before trusting anything.
        const body = await readBody(req);
        if (!webhook || body === null) return json(res, webhook ? 413 : 503, { error: webhook ? 'too large' : 'no webhook secret' });
        let event;
        try {
          event = webhook.verify(body, req.headers);
        } catch (err) {
          log.warn?.(`refused an event: ${err.message}`);
          return json(res, 400, { error: 'bad signature' });
        }
        const id = req.headers['webhook-id'];
        // At least once, in any order: a webhook-id seen before is answered 200 and not kept twice.
        if (!seen.has(id)) {
          seen.add(id);
          events.unshift({ id, ...event });
          events.length = Math.min(events.length, 50);
        }
        res.writeHead(204);
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/members/status') {
        // The LMS asks whether a member is active, with a short-lived token it signs (its JWKS).
        const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
        try {
          const { payload } = await jwtVerify(token, lmsKeys, { audience: issuer, algorithms: ['ES256'], requiredClaims: ['jti', 'exp'] });
          const now = Math.floor(Date.now() / 1000);
          for (const [jti, exp] of answeredJtis) if (exp < now) answeredJtis.delete(jti);
          if (answeredJtis.has(payload.jti)) throw new Error(`token ${payload.jti} was answered before`);
          answeredJtis.set(payload.jti, payload.exp);
          const membershipId = String(payload.sub ?? '');
          return json(res, 200, { membershipId, active: !membershipId.startsWith('INACTIVE') });
        } catch (err) {
          log.warn?.(`refused a member check: ${err.message}`);
          return json(res, 401, { error: 'bad token' });
        }
      }
      if (req.method === 'GET' && url.pathname === '/login') {
        const member = {
          email: url.searchParams.get('email') ?? '',
          name: url.searchParams.get('name') ?? '',
          membershipId: url.searchParams.get('membershipId') ?? '',
          tier: url.searchParams.get('tier') ?? 'member',
        };
        if (!member.email.includes('@') || !member.membershipId || !TIERS.has(member.tier)) {
          return html(
            res,
            400,
            'Bad request',
            '<p>email, membershipId and tier (member, umum or mahasiswa) are required.</p><p><a href="/">Back</a></p>',
          );
        }
        const token = await signSsoToken(key, issuer, member);
        const answer = await askGateway(gatewayUrl, token);
        if (answer.ok) {
          // The browser, not this server, follows the chain: LMS /sso/verify → callback → /dashboard.
          res.writeHead(302, { location: answer.location, 'cache-control': 'no-store' });
          return res.end();
        }
        log.warn?.(`gateway refused the sign-in: ${answer.status} ${answer.error}`);
        return html(
          res,
          502,
          'Sign-in refused',
          `<h1>The gateway refused the sign-in</h1><p>HTTP ${answer.status}: <code>${escapeHtml(answer.error)}</code></p><p><a href="/">Back</a></p>`,
        );
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not found' }));
    } catch (err) {
      log.error?.(err);
      if (!res.headersSent) html(res, 502, 'Error', `<p>Could not reach the gateway at ${escapeHtml(gatewayUrl)}.</p>`);
      else res.end();
    }
  });
  return { server, key };
}
