import { apiKeys, hashToken, sessions } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/clock.js';
import { apiKeyFor, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

// The auth plugin records when a key or a session was last used (at most once a minute each,
// after the answer, through prepared statements): what an operator reads to find idle keys and
// what the key list shows its owner.

const time = manualClock();
const { app, db: testDb } = await buildTestApp(t, { deps: { clock: time.clock } });
const db = testDb.db;
const teacher = await makeUser(db, { role: 'teacher' });

/** The value once it is no longer `before` (the touch runs after the answer), or the last value read. */
async function settled<T>(read: () => Promise<T>, before: T): Promise<T> {
  let value = await read();
  for (let i = 0; i < 100 && value === before; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    value = await read();
  }
  return value;
}

t.test('an API key: its first use is recorded, then at most once a minute', async (t) => {
  const key = await apiKeyFor(db, teacher.id);
  const lastUsed = async () =>
    (
      await db
        .select({ at: apiKeys.lastUsedAt })
        .from(apiKeys)
        .where(eq(apiKeys.keyHash, hashToken(key)))
    )[0]?.at?.getTime() ?? null;
  t.equal(await lastUsed(), null, 'never used');
  t.equal((await app.inject({ url: '/api/courses', headers: { 'x-api-key': key } })).statusCode, 200);
  const first = time.ms;
  t.equal(await settled(lastUsed, null), first, 'the first use is recorded at the time of the request');

  time.at(30, first);
  t.equal((await app.inject({ url: '/api/courses', headers: { 'x-api-key': key } })).statusCode, 200);
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(await lastUsed(), first, '30 s later: not written again');

  time.at(61, first);
  t.equal((await app.inject({ url: '/api/courses', headers: { 'x-api-key': key } })).statusCode, 200);
  t.equal(await settled(lastUsed, first), first + 61_000, 'a minute later: written again');
});

t.test('a session: seen again after a minute is recorded', async (t) => {
  const cookie = await sessionCookieFor(app, teacher.id);
  const tokenHash = hashToken(cookie.split('=')[1]!);
  const lastSeen = async () =>
    (await db.select({ at: sessions.lastSeenAt }).from(sessions).where(eq(sessions.tokenHash, tokenHash)))[0]!.at.getTime();
  const opened = await lastSeen();
  time.set(opened + 120_000);
  t.equal((await app.inject({ url: '/api/courses', headers: { cookie } })).statusCode, 200);
  t.equal(await settled(lastSeen, opened), opened + 120_000, 'lastSeenAt moves to the time of the request');
});
