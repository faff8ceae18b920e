import { webhookAttempts, webhookEndpoints } from '@lms/db';
import t from 'tap';
import { embeddedIPv4, isPublicAddress } from '../../src/domain/partner-events/outbound.js';
import { addEndpointRow, drain, eventsWorld, receiver } from './fixtures.js';
import ipaddr from 'ipaddr.js';

// IPv6 addresses that carry an IPv4 address (issue 40, Low): `[::127.0.0.1]` (the URL parser
// writes it `[::7f00:1]`) and `[::a9fe:a9fe]` (the metadata address) passed the public-address
// check, which trusted ipaddr.js's "unicast" label. Now the IPv4 address inside an
// IPv4-compatible, -mapped or -translated address, a NAT64, 6to4 or Teredo address is what must
// be public.

t.test('the check: an address carrying a private IPv4 address is not public', async (t) => {
  const refused = [
    '::127.0.0.1',
    '::7f00:1',
    '::a9fe:a9fe',
    '::a00:1',
    '::ffff:127.0.0.1',
    '::ffff:0:7f00:1',
    '::ffff:0:a9fe:a9fe',
    '64:ff9b::7f00:1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::c0a8:101',
    '64:ff9b:1::808:808',
    '2002:7f00:1::1',
    '2002:a9fe:a9fe::',
    '2002:a00:1::',
    // Teredo: a public server (65.54.227.120) with the client 10.0.0.1 (inverted: f5ff:fffe).
    '2001:0:4136:e378:8000:63bf:f5ff:fffe',
    // Teredo: the server 169.254.169.254 with a public client.
    '2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7',
    '::',
    '::1',
    'fe80::1',
    'fc00::1',
    '2001:db8::1',
  ];
  for (const address of refused) t.notOk(isPublicAddress(address), `${address}: not public`);
  const allowed = [
    '8.8.8.8',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ];
  for (const address of allowed) t.ok(isPublicAddress(address), `${address}: public`);
  t.same(
    embeddedIPv4(ipaddr.IPv6.parse('2001:0:4136:e378:8000:63bf:3fff:fdd2'))?.map(String),
    ['65.54.227.120', '192.0.2.45'],
    "Teredo: the server's address and the client's, inverted (RFC 4380's example)",
  );
  t.equal(embeddedIPv4(ipaddr.IPv6.parse('2606:4700::1111')), null, 'an ordinary address carries none');
});

t.test('the webhooks form refuses such a URL, and a stored one is never connected to', async (t) => {
  const w = await eventsWorld(t, {
    settings: { policy: { allowHttp: true, allowPrivate: false }, retryScheduleMs: [30] },
    allowPrivateAddresses: false,
  });
  const post = (body: string) =>
    w.app.inject({
      method: 'POST',
      url: '/dashboard/webhooks',
      headers: { cookie: w.cast.superAdmin.cookie, origin: 'http://localhost:3000', 'content-type': 'application/x-www-form-urlencoded' },
      payload: body,
    });
  for (const url of [
    'https://[::127.0.0.1]/hooks',
    'https://[::7f00:1]/hooks',
    'https://[::a9fe:a9fe]/latest/meta-data',
    'https://[64:ff9b::a9fe:a9fe]/',
  ]) {
    const res = await post(`issuer=a.example.org&url=${encodeURIComponent(url)}`);
    t.equal(res.statusCode, 303, url);
    t.match(res.headers.location, /done=invalid/, `${url}: refused on the page`);
  }
  t.equal((await w.db.db.select().from(webhookEndpoints)).length, 0, 'nothing added');

  // An endpoint stored before this rule (or by hand) is refused before any connection.
  const a = await receiver(t);
  const port = new URL(a.url).port;
  await addEndpointRow(w.db.db, w.partnerA, `http://[::7f00:1]:${port}/hooks`);
  await w.enrol(w.course.id, w.cast.learner.cookie);
  await drain(w.app, w.db.db);
  t.equal(a.got.length, 0, 'nothing reached the receiver');
  const attempts = await w.db.db.select().from(webhookAttempts);
  t.ok(attempts.length >= 1, 'the delivery was tried');
  t.ok(
    attempts.every((x) => x.result === 'blocked' || x.result === 'failed'),
    'blocked, not retried as a network error',
  );
  t.match(attempts[0]!.excerpt, /not a public address/, 'refused by the address check, before connecting');
});
