import t from 'tap';
import { makePartnerKey, partnerClaims, signPartnerToken } from '../src/testing.js';
import { MAX_TOKEN_LENGTH, readUnverifiedToken } from '../src/unverified.js';

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const SIG = Buffer.from('not-a-real-signature').toString('base64url');
const compact = (header: unknown, payload: unknown, signature = SIG) => `${b64(header)}.${b64(payload)}.${signature}`;
const HEADER = { alg: 'RS256', typ: 'JWT', kid: 'k1' };

t.test('a token signed with jose is read without verification', async (t) => {
  const token = await signPartnerToken(await makePartnerKey('key-1'), partnerClaims('partner.example.org', { email: 'a@example.org' }));
  const read = readUnverifiedToken(token);
  t.ok(read.ok);
  if (!read.ok) return;
  t.equal(read.issuer, 'partner.example.org');
  t.equal(read.header.kid, 'key-1');
  t.equal(read.payload.email, 'a@example.org');
});

t.test('no token is "token is required"', async (t) => {
  for (const token of [undefined, null, '']) {
    t.same(readUnverifiedToken(token), { ok: false, code: 'missing_token', error: 'token is required' }, String(token));
  }
});

t.test('malformed tokens are "invalid token format"', async (t) => {
  const cases: Record<string, unknown> = {
    'not a string': 42,
    'an array': ['a.b.c'],
    'one segment': 'abc',
    'two segments': `${b64(HEADER)}.${b64({ iss: 'x' })}`,
    'four segments': `${compact(HEADER, { iss: 'x' })}.${SIG}`,
    'empty header segment': `.${b64({ iss: 'x' })}.${SIG}`,
    'empty payload segment': `${b64(HEADER)}..${SIG}`,
    'empty signature (alg none style)': compact({ alg: 'none' }, { iss: 'x' }, ''),
    'padding in a segment': `${b64(HEADER)}.${b64({ iss: 'x' })}=.${SIG}`,
    'standard base64 characters': `${b64(HEADER)}.${b64({ iss: 'x' })}.ab+/cd`,
    'whitespace inside': `${b64(HEADER)}. ${b64({ iss: 'x' })}.${SIG}`,
    'segment of impossible length 4n+1': `${b64(HEADER)}.${b64({ iss: 'x' })}.abcde`,
    'payload not JSON': `${b64(HEADER)}.${b64('hello')}.${SIG}`,
    'header not JSON': `${b64('{"alg":')}.${b64({ iss: 'x' })}.${SIG}`,
    'payload a JSON array': compact(HEADER, [{ iss: 'x' }]),
    'payload JSON null': compact(HEADER, null),
    'payload a JSON string': compact(HEADER, JSON.stringify('iss')),
    'header a JSON number': compact(7, { iss: 'x' }),
    'payload not UTF-8': `${b64(HEADER)}.${Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString('base64url')}.${SIG}`,
  };
  for (const [name, token] of Object.entries(cases)) {
    t.same(readUnverifiedToken(token), { ok: false, code: 'invalid_format', error: 'invalid token format' }, name);
  }
});

t.test('a token over 8 KB is refused as a bad format, one of exactly 8 KB is read', async (t) => {
  // Header and payload with a padding claim, then a signature of 'A's filling up to `length`
  // (a signature length of 4n+1 is impossible base64url, so the padding claim is grown instead).
  const sized = (length: number) => {
    for (let pad = 'x'; ; pad += 'x') {
      const prefix = `${b64(HEADER)}.${b64({ iss: 'partner.example.org', pad })}.`;
      const signatureLength = length - prefix.length;
      if (signatureLength > 0 && signatureLength % 4 !== 1) return prefix + 'A'.repeat(signatureLength);
    }
  };
  const atLimit = sized(MAX_TOKEN_LENGTH);
  t.equal(atLimit.length, MAX_TOKEN_LENGTH);
  const read = readUnverifiedToken(atLimit);
  t.ok(read.ok, 'exactly 8192 characters is accepted');
  const overLimit = sized(MAX_TOKEN_LENGTH + 1);
  t.equal(overLimit.length, MAX_TOKEN_LENGTH + 1);
  t.same(readUnverifiedToken(overLimit), { ok: false, code: 'invalid_format', error: 'invalid token format' });
  t.same(readUnverifiedToken('a'.repeat(100_000)), { ok: false, code: 'invalid_format', error: 'invalid token format' });
});

t.test('an absent, empty or non-string iss is "missing issuer (iss) claim"', async (t) => {
  const payloads: Record<string, unknown> = {
    absent: { sub: 'member' },
    empty: { iss: '' },
    number: { iss: 42 },
    null: { iss: null },
    object: { iss: { name: 'partner' } },
    array: { iss: ['partner.example.org'] },
    boolean: { iss: true },
  };
  for (const [name, payload] of Object.entries(payloads)) {
    t.same(readUnverifiedToken(compact(HEADER, payload)), { ok: false, code: 'missing_issuer', error: 'missing issuer (iss) claim' }, name);
  }
});

t.test('any header and payload objects are read as they are (nothing is verified here)', async (t) => {
  const read = readUnverifiedToken(compact({}, { iss: 'p.example' }));
  t.same(read, { ok: true, issuer: 'p.example', header: {}, payload: { iss: 'p.example' } });
});

t.test('a header read before is kept, frozen, and what an attacker sends cannot change what is read', async (t) => {
  const token = compact(HEADER, { iss: 'partner.example.org' });
  const first = readUnverifiedToken(token);
  const again = readUnverifiedToken(compact(HEADER, { iss: 'other.example.org' }));
  if (!first.ok || !again.ok) return t.fail('both read');
  t.equal(again.header, first.header, 'the same header text is decoded once and kept');
  t.equal(again.issuer, 'other.example.org', 'the payload is always the token’s own');
  t.ok(Object.isFrozen(first.header), 'kept headers are frozen');
  t.throws(
    () => {
      (first.header as Record<string, unknown>).kid = 'forged';
    },
    TypeError,
    'a caller cannot change a kept header for the next token',
  );
  // Nested members are frozen too: a kept header with an array and an object in it.
  const nested = { ...HEADER, crit: ['exp'], x: { y: 1 } };
  const withNested = readUnverifiedToken(compact(nested, { iss: 'partner.example.org' }));
  if (!withNested.ok) return t.fail('read');
  t.throws(() => (withNested.header.crit as string[]).push('forged'), TypeError, 'a kept header’s array cannot be changed');
  t.throws(
    () => {
      (withNested.header.x as Record<string, unknown>).y = 2;
    },
    TypeError,
    'nor an object inside it',
  );
  t.same(
    readUnverifiedToken(compact(nested, { iss: 'x' })),
    { ok: true, issuer: 'x', header: nested, payload: { iss: 'x' } },
    'the next token reads the header as sent',
  );
  // Hundreds of headers never seen before (more than are kept), then a bad one with the good payload.
  const sprayed = Array.from({ length: 300 }, (_, i) => readUnverifiedToken(compact({ ...HEADER, kid: `spray-${i}` }, { iss: 'x' })));
  t.same(
    sprayed.map((r) => r.ok && r.header.kid),
    Array.from({ length: 300 }, (_, i) => `spray-${i}`),
    'each sprayed token reads as its own header',
  );
  t.same(readUnverifiedToken(`${b64('{"alg":')}.${b64({ iss: 'partner.example.org' })}.${SIG}`), {
    ok: false,
    code: 'invalid_format',
    error: 'invalid token format',
  });
  const after = readUnverifiedToken(token);
  t.match(after, { ok: true, issuer: 'partner.example.org', header: HEADER }, 'still read exactly after the spray');
  // A long header is read but not kept.
  const long = compact({ ...HEADER, pad: 'p'.repeat(600) }, { iss: 'x' });
  const a = readUnverifiedToken(long);
  const b = readUnverifiedToken(long);
  t.ok(a.ok && b.ok && a.header !== b.header, 'a header over 512 characters is decoded each time');
});
