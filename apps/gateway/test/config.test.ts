import t from 'tap';
import { ConfigError, loadConfig } from '../src/config.js';

t.test('TRUST_PROXY: a comma-separated list of CIDRs, empty by default', async (t) => {
  t.same(loadConfig({}).trustProxy, [], 'no proxy is trusted by default');
  t.same(loadConfig({ TRUST_PROXY: '' }).trustProxy, []);
  t.same(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8 , 192.0.2.1,2001:db8::/32,::ffff:172.16.0.0/108' }).trustProxy, [
    '10.0.0.0/8',
    '192.0.2.1/32',
    '2001:db8::/32',
    '172.16.0.0/12',
  ]);
});

t.test('an invalid TRUST_PROXY stops the start, naming each bad CIDR', async (t) => {
  t.throws(() => loadConfig({ TRUST_PROXY: '010.0.0.0/8' }), {
    name: 'ConfigError',
    message:
      'Invalid configuration:\n  TRUST_PROXY: "010.0.0.0/8" is not a valid CIDR: leading zeros are not allowed in an IPv4 address (they are read as octal by some tools)',
  });
  t.throws(() => loadConfig({ TRUST_PROXY: '10.0.0.0/8,10.0.0.0/33,true' }), {
    message:
      /TRUST_PROXY: "10.0.0.0\/33" is not a valid CIDR: prefix \/33 is out of range for IPv4 \(0-32\)\n {2}TRUST_PROXY: "true" is not a valid CIDR/,
  });
  t.throws(() => loadConfig({ TRUST_PROXY: '1' }), ConfigError, 'a hop count is not accepted');
});

t.test('a TRUST_PROXY range that holds every address is refused: every peer would be believed', async (t) => {
  // The attack it stops: with every peer trusted, a caller from anywhere sends
  // `X-Forwarded-For: <a partner's allowed address>` and passes that partner's IP allowlist.
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
  // Broad private ranges, where one's own proxies live, stay allowed.
  t.same(loadConfig({ TRUST_PROXY: '10.0.0.0/8,172.16.0.0/12,fc00::/7' }).trustProxy, ['10.0.0.0/8', '172.16.0.0/12', 'fc00::/7']);
});

t.test('connection limits: defaults, and a headers timeout longer than the request timeout stops the start', async (t) => {
  t.match(loadConfig({}), { HEADERS_TIMEOUT_MS: 10_000, REQUEST_TIMEOUT_MS: 30_000, KEEP_ALIVE_TIMEOUT_MS: 72_000 });
  t.throws(() => loadConfig({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' }), {
    name: 'ConfigError',
    message: /HEADERS_TIMEOUT_MS \(20000\) must not exceed REQUEST_TIMEOUT_MS \(10000\)/,
  });
});

t.test('LMS_UPSTREAM_URL: unset by default; an http(s) URL without query, its trailing slash dropped', async (t) => {
  t.equal(loadConfig({}).LMS_UPSTREAM_URL, undefined, 'unset: forwarded to the partner lmsUrl');
  t.equal(loadConfig({ LMS_UPSTREAM_URL: 'http://balancer:3000/' }).LMS_UPSTREAM_URL, 'http://balancer:3000');
  t.equal(loadConfig({ LMS_UPSTREAM_URL: 'https://lms.internal/prefix' }).LMS_UPSTREAM_URL, 'https://lms.internal/prefix');
  for (const bad of ['ftp://lms:21', 'lms:3000', 'http://lms:3000/?x=1']) {
    t.throws(() => loadConfig({ LMS_UPSTREAM_URL: bad }), /LMS_UPSTREAM_URL/, `refused: ${bad}`);
  }
});
