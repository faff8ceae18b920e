import t from 'tap';
import { ConfigError, loadConfig } from '../src/config.js';

// CI runs this file once (not again in the PostgreSQL pass): configuration parsing, no database.

// TRUST_PROXY decides whose X-Forwarded-For names the client (the failed-credentials limit is per
// client IP): parsed strictly, as the gateway parses it, so a typo cannot trust the wrong range.

t.test('TRUST_PROXY: comma-separated CIDRs, canonical, empty by default', async (t) => {
  t.same(loadConfig({}).trustProxy, [], 'no proxy is trusted by default');
  t.same(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8 , 192.0.2.1,2001:db8::/32,::ffff:172.16.0.0/108' }).trustProxy, [
    '10.0.0.0/8',
    '192.0.2.1/32',
    '2001:db8::/32',
    '172.16.0.0/12',
  ]);
});

t.test('a TRUST_PROXY that is not a list of CIDRs stops the start, naming each bad entry', async (t) => {
  t.throws(() => loadConfig({ TRUST_PROXY: '010.0.0.0/8' }), {
    name: 'ConfigError',
    message:
      'Invalid configuration:\n  TRUST_PROXY: "010.0.0.0/8" is not a valid CIDR: leading zeros are not allowed in an IPv4 address (they are read as octal by some tools)',
  });
  t.throws(() => loadConfig({ TRUST_PROXY: 'true,10.0.0.1/8' }), {
    message:
      /TRUST_PROXY: "true" is not a valid CIDR.*\n {2}TRUST_PROXY: "10.0.0.1\/8" is not a valid CIDR: host bits are set; did you mean 10.0.0.0\/8\?/,
  });
  t.throws(() => loadConfig({ TRUST_PROXY: '1' }), ConfigError, 'a hop count is not accepted');
});

t.test('a TRUST_PROXY range that holds every address is refused: every peer would be believed', async (t) => {
  // With every peer trusted, any caller names a fresh address in X-Forwarded-For on each request
  // and is never held by the per-IP failed-credentials limit.
  for (const everything of ['0.0.0.0/0', '::/0', '::ffff:0.0.0.0/96']) {
    t.throws(
      () => loadConfig({ TRUST_PROXY: `10.0.0.0/8,${everything}` }),
      {
        name: 'ConfigError',
        message: `Invalid configuration:\n  TRUST_PROXY: "${everything}" holds every address, so any caller could name any address in X-Forwarded-For; list the ranges of your own proxies only`,
      },
      `${everything} is refused, named as written`,
    );
  }
});

t.test('connection limits: defaults, and a headers timeout longer than the request timeout stops the start', async (t) => {
  t.match(loadConfig({}), { HEADERS_TIMEOUT_MS: 10_000, REQUEST_TIMEOUT_MS: 30_000, KEEP_ALIVE_TIMEOUT_MS: 72_000 });
  t.throws(() => loadConfig({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' }), {
    name: 'ConfigError',
    message: /HEADERS_TIMEOUT_MS \(20000\) must not exceed REQUEST_TIMEOUT_MS \(10000\)/,
  });
  t.throws(
    () => loadConfig({ REQUEST_TIMEOUT_MS: '0' }),
    { name: 'ConfigError', message: /REQUEST_TIMEOUT_MS/ },
    '0 (no limit) is refused',
  );
});

t.test('reminders: REMINDER_INACTIVE_DAYS and CREDIT_REMINDER_FROM, with their defaults; a day no year has stops the start', async (t) => {
  t.match(loadConfig({}), { REMINDER_INACTIVE_DAYS: 14, CREDIT_REMINDER_FROM: '11-01' });
  t.match(loadConfig({ REMINDER_INACTIVE_DAYS: '30', CREDIT_REMINDER_FROM: '02-29' }), {
    REMINDER_INACTIVE_DAYS: 30,
    CREDIT_REMINDER_FROM: '02-29',
  });
  for (const bad of ['11-1', '2026-11-01', '13-01', '02-30', '04-31']) {
    t.throws(() => loadConfig({ CREDIT_REMINDER_FROM: bad }), { name: 'ConfigError', message: /CREDIT_REMINDER_FROM/ }, bad);
  }
  t.throws(() => loadConfig({ REMINDER_INACTIVE_DAYS: '0' }), { name: 'ConfigError', message: /REMINDER_INACTIVE_DAYS/ });
});
