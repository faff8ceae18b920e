import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { emailSenderOptions, loadConfig } from '../../src/config.js';

// CI runs this file once (not again in the PostgreSQL pass): configuration parsing, no database.
// The e-mail settings: a bad SMTP_URL or a DKIM key that cannot be used stops the start with a
// message naming the variable, never a failure at the first send.

const rsaPem = (bits: number) =>
  generateKeyPairSync('rsa', { modulusLength: bits }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

t.test('SMTP_URL: smtp:// or smtps://, else the start stops naming it', async (t) => {
  t.equal(emailSenderOptions(loadConfig({})), null, 'unset: no e-mail is sent');
  const options = emailSenderOptions(
    loadConfig({ SMTP_URL: 'smtps://user:p%40ss@mail.example.org', PUBLIC_URL: 'https://lms.example.org' }),
  );
  t.match(options, { smtpUrl: 'smtps://user:p%40ss@mail.example.org', from: 'LMS <no-reply@lms.example.org>', connectTimeoutMs: 10_000 });
  t.notOk(options?.dkim, 'no DKIM unless configured');
  t.equal(
    emailSenderOptions(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:1025', MAIL_FROM: 'Kursus <kursus@iai.test>' }))?.from,
    'Kursus <kursus@iai.test>',
  );
  for (const [bad, message] of [
    ['http://mail.example.org', /SMTP_URL: the scheme must be smtp:\/\/ \(STARTTLS when offered\) or smtps:\/\/ \(TLS\), not http:\/\//],
    ['mail.example.org:587', /SMTP_URL: the scheme must be smtp:\/\//],
    ['not a url', /SMTP_URL: not a URL: write smtp:\/\/user:password@host:587/],
    ['smtp://mail.example.org/path', /SMTP_URL: no path or query/],
  ] as const) {
    t.throws(() => loadConfig({ SMTP_URL: bad }), { name: 'ConfigError', message }, bad);
  }
  t.throws(() => loadConfig({ MAIL_FROM: 'LMS no-reply' }), { name: 'ConfigError', message: /MAIL_FROM: an address or "Name <address>"/ });
});

t.test('DKIM: all three parts or none; the key readable and RSA; inline or from a file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'lms-dkim-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const pem = rsaPem(2048);
  const file = join(dir, 'dkim.pem');
  await writeFile(file, pem);
  const base = { SMTP_URL: 'smtp://127.0.0.1:25', DKIM_DOMAIN: 'lms.example.org', DKIM_SELECTOR: 'lms2026' };

  t.same(emailSenderOptions(loadConfig({ ...base, DKIM_PRIVATE_KEY_FILE: file }))?.dkim, {
    domainName: 'lms.example.org',
    keySelector: 'lms2026',
    privateKey: pem,
  });
  const inline = emailSenderOptions(loadConfig({ ...base, DKIM_PRIVATE_KEY: pem.replaceAll('\n', '\\n') }));
  t.equal(inline?.dkim?.privateKey, pem, 'a PEM written with \\n escapes in one line');

  const stops = (env: Record<string, string>, message: RegExp, what: string) =>
    t.throws(() => loadConfig({ ...base, ...env }), { name: 'ConfigError', message }, what);
  stops({ DKIM_PRIVATE_KEY_FILE: join(dir, 'missing.pem') }, /DKIM_PRIVATE_KEY_FILE: cannot read .*missing\.pem/, 'an unreadable key file');
  stops({ DKIM_PRIVATE_KEY: 'not a key' }, /DKIM_PRIVATE_KEY: not a readable PEM private key/, 'a key that is no PEM');
  stops({ DKIM_PRIVATE_KEY: pem, DKIM_PRIVATE_KEY_FILE: file }, /set one, not both/, 'both');
  stops({ DKIM_PRIVATE_KEY: rsaPem(512) }, /at least 1024 are needed/, 'a 512-bit key');
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  stops({ DKIM_PRIVATE_KEY: ec }, /DKIM_PRIVATE_KEY: an RSA key is needed/, 'an EC key');
  t.throws(() => loadConfig({ DKIM_DOMAIN: 'lms.example.org' }), {
    message: /DKIM_SELECTOR, DKIM_PRIVATE_KEY \(or DKIM_PRIVATE_KEY_FILE\) not set/,
  });
  t.throws(() => loadConfig({ DKIM_DOMAIN: 'not a domain' }), { message: /DKIM_DOMAIN: a domain name/ });
});
