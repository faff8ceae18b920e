import t from 'tap';
import { isInRanges, normalizeIp, parseCidr, parseCidrList } from '../src/cidr.js';

const text = (input: string) => {
  const parsed = parseCidr(input);
  return parsed.ok ? parsed.range.text : `ERROR ${parsed.error}`;
};

t.test('valid CIDRs and bare addresses, in canonical form', async (t) => {
  t.equal(text('10.0.0.0/8'), '10.0.0.0/8');
  t.equal(text('0.0.0.0/0'), '0.0.0.0/0');
  t.equal(text('203.0.113.7'), '203.0.113.7/32', 'a bare IPv4 address is one host');
  t.equal(text('203.0.113.7/32'), '203.0.113.7/32');
  t.equal(text('2001:0db8:0000::/32'), '2001:db8::/32', 'IPv6 is written compressed');
  t.equal(text('::1'), '::1/128', 'a bare IPv6 address is one host');
  t.equal(text('::/0'), '::/0');
  t.equal(text('::ffff:10.0.0.0/104'), '10.0.0.0/8', 'an IPv4-mapped range is the IPv4 range');
  t.equal(text('::ffff:127.0.0.1'), '127.0.0.1/32');
});

t.test('invalid CIDRs say what is wrong', async (t) => {
  t.match(text('010.0.0.0/8'), /^ERROR leading zeros are not allowed/);
  t.match(text('10.0.0.01'), /^ERROR leading zeros are not allowed/);
  t.match(text('10.0.0.0/33'), /^ERROR prefix \/33 is out of range for IPv4 \(0-32\)/);
  t.match(text('2001:db8::/129'), /^ERROR prefix \/129 is out of range for IPv6 \(0-128\)/);
  t.match(text('10.0.0.0/08'), /^ERROR prefix "\/08" is not a decimal number/);
  t.match(text('10.0.0.0/'), /^ERROR prefix "\/" is not a decimal number/);
  t.match(text('10.0.0.0/8/8'), /^ERROR prefix "\/8\/8" is not a decimal number/);
  t.match(text('10.0.0.0/-1'), /^ERROR prefix/);
  t.match(text('10.1.2.3/8'), /^ERROR host bits are set; did you mean 10\.0\.0\.0\/8\?/);
  t.match(text('2001:db8::1/32'), /^ERROR host bits are set; did you mean 2001:db8::\/32\?/);
  t.match(text('256.0.0.0/8'), /^ERROR not a valid IPv4 address/);
  t.match(text('10.0.0/8'), /^ERROR not a valid IPv4 address/);
  t.match(text('0x7f.0.0.1'), /^ERROR not a valid IPv4 address/);
  t.match(text('2130706433'), /^ERROR not a valid IPv4 address/, 'a 32-bit number is not an address here');
  t.match(text(' 10.0.0.0/8'), /^ERROR not a valid IPv4 address/, 'no surrounding spaces');
  t.match(text('localhost'), /^ERROR not a valid IPv4 address/);
  t.match(text(''), /^ERROR not a valid IPv4 address/);
  t.match(text('2001:db8::g/32'), /^ERROR not a valid IPv6 address/);
  t.match(text('fe80::1%eth0'), /^ERROR an IPv6 zone/);
  t.match(text('::ffff:010.0.0.1'), /^ERROR the embedded IPv4 part/);
});

t.test('matching: IPv4-mapped callers as IPv4, never across families', async (t) => {
  const ranges = parseCidrList(['127.0.0.0/8', '2001:db8::/32'], 'test');
  const inside = (ip: string) => {
    const address = normalizeIp(ip);
    return address !== undefined && isInRanges(address, ranges);
  };
  t.ok(inside('127.0.0.1'));
  t.ok(inside('127.255.255.255'));
  t.ok(inside('::ffff:127.0.0.1'));
  t.ok(inside('2001:db8:1::1'));
  t.notOk(inside('128.0.0.1'));
  t.notOk(inside('::ffff:10.0.0.1'));
  t.notOk(inside('::1'));
  t.notOk(inside('::7f00:1'), 'an IPv4-compatible (not mapped) address stays IPv6');
  t.notOk(inside('2001:db9::1'));
  t.notOk(inside('not-an-ip'));
  t.notOk(inside(''));
  t.equal(normalizeIp('::ffff:127.0.0.1')?.toString(), '127.0.0.1');
});

t.test('parseCidrList names every bad entry with its setting', async (t) => {
  t.throws(() => parseCidrList(['10.0.0.0/8', '010.0.0.0/8', '1.2.3.4/33'], 'TRUST_PROXY'), {
    message:
      'TRUST_PROXY: "010.0.0.0/8" is not a valid CIDR: leading zeros are not allowed in an IPv4 address (they are read as octal by some tools)\n' +
      'TRUST_PROXY: "1.2.3.4/33" is not a valid CIDR: prefix /33 is out of range for IPv4 (0-32)',
  });
  t.same(parseCidrList([], 'x'), []);
});
