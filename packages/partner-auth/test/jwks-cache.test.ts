import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JWK } from 'jose';
import t, { type Test } from 'tap';
import { JwksCache, PartnerKeyRegistry, PartnerTokenError } from '../src/index.js';
import { makePartnerKey, withKid } from '../src/testing.js';

// The JWKS cache against a real JWKS server on the loopback that can hang (accept the request
// and never answer). Its clock is the test's; the server counts the fetches it received.

const key = await makePartnerKey();
const jwkOf = async (kid: string): Promise<JWK> => withKid(key, kid).publicJwk;
const jwkA = await jwkOf('a');
const jwkB = await jwkOf('b');

async function jwksServer(t: Test) {
  const state = { keys: [jwkA], hang: false, hits: 0 };
  const held: ServerResponse[] = [];
  const server = createServer((_req, res) => {
    state.hits += 1;
    if (state.hang) return void held.push(res);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: state.keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`,
    /** Answers the held requests with the current keys. */
    answerHeld() {
      for (const res of held.splice(0))
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: state.keys }));
    },
  };
}

function clock(startMs = Date.parse('2026-11-22T10:00:00Z')) {
  let nowMs = startMs;
  return {
    now: () => nowMs,
    advance: (seconds: number) => {
      nowMs += seconds * 1000;
    },
  };
}

/** A promise with its state readable (to assert order, not time). */
function watched<T>(promise: Promise<T>) {
  const w = { settled: false, value: undefined as T | undefined, promise };
  void promise.then((v) => {
    w.settled = true;
    w.value = v;
  });
  return w;
}

async function until(condition: () => boolean) {
  for (let i = 0; i < 500 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error('condition not reached');
}

t.test('a known kid is answered while a refetch of the hanging URL is pending', async (t) => {
  const jwks = await jwksServer(t);
  const time = clock();
  const cache = new JwksCache({ now: time.now, timeoutMs: 60_000 });
  t.ok(await cache.getKey(jwks.url, 'a'), 'warm: kid a fetched');
  t.equal(jwks.state.hits, 1);

  // The URL starts hanging; an unknown kid, its cooldown over, starts a refetch and waits for it.
  jwks.state.hang = true;
  time.advance(31);
  const miss = watched(cache.getKey(jwks.url, 'not-there'));
  await until(() => jwks.state.hits === 2);
  t.ok(cache.refreshing(jwks.url), 'the refetch is under way');

  const known = await cache.getKey(jwks.url, 'a');
  t.ok(known, 'kid a answered');
  t.notOk(miss.settled, 'while the refetch (and the lookup waiting for it) is still pending');

  // Past the max age too: the known key is answered at once, its refresh pending in the background.
  jwks.answerHeld();
  t.equal(await miss.promise, null, 'the refetch did not bring the unknown kid');
  time.advance(3600);
  const stale = await cache.getKey(jwks.url, 'a');
  t.ok(stale, 'an expired set still answers a known kid at once');
  await until(() => jwks.state.hits === 3);
  t.ok(cache.refreshing(jwks.url), 'its refresh is pending, nobody waits for it');
  t.equal(cache.stats.staleServed, 1);
  jwks.answerHeld();
  await cache.refreshing(jwks.url);
});

t.test('a cold cache waits for the fetch, bounded by the timeout', async (t) => {
  const jwks = await jwksServer(t);
  jwks.state.hang = true;
  const cache = new JwksCache({ timeoutMs: 200 });
  await t.rejects(cache.getKey(jwks.url, 'a'), { name: 'JwksUnavailableError', message: 'no answer within 200 ms' });
  t.equal(jwks.state.hits, 1);
});

t.test('random kids: at most one refetch per cooldown, the cooldown doubling; a changed key set resets it', async (t) => {
  const jwks = await jwksServer(t);
  const time = clock();
  const cache = new JwksCache({ now: time.now, cooldownMs: 30_000 });
  await cache.getKey(jwks.url, 'a');
  const burst = () => Promise.all(Array.from({ length: 50 }, () => cache.getKey(jwks.url, randomUUID())));

  await burst();
  t.equal(jwks.state.hits, 1, '50 random kids within 30 s of the fetch: no refetch');
  time.advance(30);
  await burst();
  t.equal(jwks.state.hits, 2, '30 s later, 50 random kids at once share one refetch');
  time.advance(30);
  await burst();
  t.equal(jwks.state.hits, 2, 'it brought nothing: the next needs 60 s');
  time.advance(30);
  await burst();
  t.equal(jwks.state.hits, 3, 'at 60 s');
  time.advance(119);
  await burst();
  t.equal(jwks.state.hits, 3, 'then 120 s');
  time.advance(1);
  await burst();
  t.equal(jwks.state.hits, 4);

  // The partner publishes a new key: the refetch that finds it resets the cooldown.
  jwks.state.keys = [jwkA, jwkB];
  time.advance(240);
  t.ok(await cache.getKey(jwks.url, 'b'), 'the new kid is found');
  t.equal(jwks.state.hits, 5);
  time.advance(30);
  await burst();
  t.equal(jwks.state.hits, 6, 'back to 30 s after the set changed');

  // An hour of one random kid every 10 s costs the partner a handful of fetches.
  const before = jwks.state.hits;
  for (let s = 0; s < 3600; s += 10) {
    time.advance(10);
    await cache.getKey(jwks.url, randomUUID());
    await cache.refreshing(jwks.url);
  }
  const fetches = jwks.state.hits - before;
  t.comment(`one random kid every 10 s for an hour: ${fetches} fetches of the JWKS (a fixed 30-s cooldown allowed 120)`);
  t.ok(fetches <= 8, `${fetches} fetches`);
  t.ok(cache.stats.kidMissesWithoutRefetch > 300);
});

t.test('a token whose iss is not a registered partner never reaches the JWKS cache', async (t) => {
  const jwks = await jwksServer(t);
  const registry = new PartnerKeyRegistry({
    directory: {
      async findPartner(issuer) {
        return issuer === 'known.test' ? { issuer, isActive: true, jwksUrl: jwks.url, pemKeys: [] } : null;
      },
    },
  });
  for (const issuer of ['stranger.test', 'known.test.evil', '']) {
    for (let i = 0; i < 20; i += 1) {
      const err = await registry.keyFor(issuer, randomUUID()).catch((e) => e);
      t.ok(err instanceof PartnerTokenError && /issuer/.test(err.reason), `${issuer || '(empty)'}: refused as an unknown issuer`);
    }
  }
  t.equal(jwks.state.hits, 0, 'the JWKS URL was never fetched');
  t.equal(registry.jwks.stats.fetches, 0);
  t.ok(await registry.keyFor('known.test', 'a'), 'the registered partner still works');
  t.equal(jwks.state.hits, 1);
});
