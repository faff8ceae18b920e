import t from 'tap';
import { parsePartnersFile, PartnersFileError } from '../../src/domain/partners.js';

const entry = (overrides: Record<string, unknown> = {}) => ({
  iss: 'partner.example',
  allowedIps: ['203.0.113.0/24'],
  lmsUrl: 'https://lms.example.com',
  ...overrides,
});
const file = (partners: unknown[]) => JSON.stringify({ partners });
const errorOf = (text: string) => {
  try {
    parsePartnersFile(text, '/etc/partners.json');
  } catch (err) {
    if (err instanceof PartnersFileError) return err.message;
    throw err;
  }
  return 'no error';
};

t.test('a valid file gives a registry of normalized partners', async (t) => {
  const registry = parsePartnersFile(
    file([
      entry({ allowedIps: ['203.0.113.7', '2001:db8::/32', '::ffff:10.0.0.0/104'] }),
      entry({ iss: 'other.example', lmsUrl: 'http://localhost:3000/lms/' }),
    ]),
    'partners.json',
  );
  t.same(registry.issuers(), ['partner.example', 'other.example']);
  const partner = registry.find('partner.example');
  t.same(
    partner?.allowedIps.map((r) => r.text),
    ['203.0.113.7/32', '2001:db8::/32', '10.0.0.0/8'],
  );
  t.equal(partner?.lmsUrl, 'https://lms.example.com');
  t.equal(registry.find('other.example')?.lmsUrl, 'http://localhost:3000/lms', 'path kept, trailing slash dropped');
  t.equal(registry.find('PARTNER.example'), undefined, 'iss compares exactly');
  t.same(parsePartnersFile(file([]), 'x').size, 0, 'no partners is a valid (empty) registry');
});

t.test('checkAccess: unknown issuer, IP outside, inside', async (t) => {
  const registry = parsePartnersFile(file([entry()]), 'x');
  t.same(registry.checkAccess('nobody.example', '203.0.113.1'), { ok: false, reason: 'unknown_issuer' });
  t.match(registry.checkAccess('partner.example', '203.0.114.1'), { ok: false, reason: 'ip_not_allowed' });
  t.match(registry.checkAccess('partner.example', undefined), { ok: false, reason: 'ip_not_allowed' });
  t.match(registry.checkAccess('partner.example', '::ffff:203.0.113.200'), { ok: true, partner: { iss: 'partner.example' } });
});

t.test('every bad entry is named, with its index and iss', async (t) => {
  t.equal(
    errorOf(file([entry({ allowedIps: ['010.0.0.0/8'] })])),
    'Invalid partners file /etc/partners.json:\n' +
      '  partners[0] (iss "partner.example").allowedIps[0]: "010.0.0.0/8" is not a valid CIDR: leading zeros are not allowed in an IPv4 address (they are read as octal by some tools)',
  );
  t.equal(
    errorOf(file([entry(), entry({ iss: 'b.example', allowedIps: ['10.0.0.0/8', '10.0.0.0/33'] })])),
    'Invalid partners file /etc/partners.json:\n' +
      '  partners[1] (iss "b.example").allowedIps[1]: "10.0.0.0/33" is not a valid CIDR: prefix /33 is out of range for IPv4 (0-32)',
  );
  t.match(errorOf(file([entry({ lmsUrl: 'not a url' })])), /partners\[0\] \(iss "partner.example"\)\.lmsUrl: "not a url" is not a URL/);
  t.match(errorOf(file([entry({ lmsUrl: 'ftp://lms.example.com' })])), /lmsUrl: "ftp:\/\/lms.example.com" must be an http or https URL/);
  t.match(errorOf(file([entry({ lmsUrl: 'javascript:alert(1)' })])), /lmsUrl: "javascript:alert\(1\)" must be an http or https URL/);
  t.match(errorOf(file([entry({ lmsUrl: 'https://user:pw@lms.example.com' })])), /lmsUrl: .* must not carry credentials/);
  t.match(errorOf(file([entry({ lmsUrl: 'https://lms.example.com/?a=1' })])), /lmsUrl: .* must not have a query or fragment/);
  t.match(errorOf(file([entry({ lmsUrl: 'https://lms.example.com/#x' })])), /lmsUrl: .* must not have a query or fragment/);
  t.match(
    errorOf(file([entry(), entry({ allowedIps: ['10.0.0.0/8'] })])),
    /partners\[1\] \(iss "partner.example"\)\.iss: duplicate iss "partner.example" \(also partners\[0\]\)/,
  );
  t.match(errorOf(file([entry({ iss: '' })])), /partners\[0\] \(iss ""\)\.iss: iss must be a non-empty string/);
  t.match(errorOf(file([entry({ iss: 'x'.repeat(254) })])), /iss is longer than 253 characters/);
  t.match(errorOf(file([entry({ allowedIps: [] })])), /allowedIps: allowedIps must list at least one CIDR/);
  t.match(errorOf(file([entry({ allowedIP: ['10.0.0.0/8'] })])), /partners\[0\] \(iss "partner.example"\): Unrecognized key: "allowedIP"/);
  t.match(errorOf(file([{ allowedIps: ['10.0.0.0/8'], lmsUrl: 'https://lms.example.com' }])), /partners\[0\]\.iss:/);
  t.match(errorOf('{"partner": []}'), /partners: /);
  t.match(errorOf('{"partners": [ }'), /^Invalid partners file \/etc\/partners.json: not valid JSON/);
  t.match(errorOf(''), /not valid JSON/);
});

t.test('several problems are all listed, one per line', async (t) => {
  const message = errorOf(
    file([entry({ allowedIps: ['010.0.0.0/8', '1.2.3.4/33'] }), entry({ iss: 'b.example', lmsUrl: 'nope' }), entry({ iss: 'b.example' })]),
  );
  t.equal(message.split('\n').length, 5);
  t.match(message, /partners\[2\] \(iss "b.example"\)\.iss: duplicate iss "b.example" \(also partners\[1\]\)/);
  t.match(message, /allowedIps\[0\]: "010.0.0.0\/8"/);
  t.match(message, /allowedIps\[1\]: "1.2.3.4\/33"/);
  t.match(message, /partners\[1\] \(iss "b.example"\)\.lmsUrl: "nope" is not a URL/);
});
