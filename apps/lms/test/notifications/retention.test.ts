import { notifications } from '@lms/db';
import { asc } from 'drizzle-orm';
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';
import { purgeOldNotifications } from '../../src/notifications/retention.js';
import { buildTestApp } from '../helpers/app.js';
import { makeUser } from '../helpers/fixtures.js';

// The notification log is kept NOTIFICATION_LOG_RETENTION_DAYS, purged in bounded batches; the
// deployment's kinds switched off are checked at start.

t.test('purgeOldNotifications deletes the old rows in batches, never the newer', async (t) => {
  const { db: testDb } = await buildTestApp(t);
  const db = testDb.db;
  const person = await makeUser(db, { role: 'student' });
  const at = (day: number) => new Date(Date.UTC(2026, 0, day));
  await db.insert(notifications).values(
    [1, 2, 3, 4, 5, 20, 21].map((day) => ({
      key: `course.inactive:course:1:d${day}`,
      userId: person.id,
      institutionId: null,
      kind: 'course.inactive',
      channel: 'email',
      data: {},
      state: day === 3 ? 'pending' : 'sent',
      createdAt: at(day),
    })),
  );
  const before = at(10);
  t.equal(await purgeOldNotifications(db, before, 2), 2, 'a batch is at most the limit');
  t.equal(await purgeOldNotifications(db, before, 2), 2);
  t.equal(await purgeOldNotifications(db, before, 2), 1);
  t.equal(await purgeOldNotifications(db, before, 2), 0, 'then none');
  const left = await db.select({ createdAt: notifications.createdAt }).from(notifications).orderBy(asc(notifications.createdAt));
  t.same(
    left.map((r) => r.createdAt),
    [at(20), at(21)],
    'the newer rows stay',
  );
});

t.test('configuration', async (t) => {
  const config = loadConfig({ NOTIFICATIONS_DISABLED_KINDS: 'course.inactive, digest.teacher' });
  t.same(config.NOTIFICATIONS_DISABLED_KINDS, ['course.inactive', 'digest.teacher']);
  t.equal(config.NOTIFICATION_LOG_RETENTION_DAYS, 90, 'kept 90 days by default');
  t.same(loadConfig({}).NOTIFICATIONS_DISABLED_KINDS, []);
  t.throws(() => loadConfig({ NOTIFICATIONS_DISABLED_KINDS: 'purchase.paid' }), ConfigError, 'a receipt cannot be switched off');
  t.throws(() => loadConfig({ NOTIFICATIONS_DISABLED_KINDS: 'course.nope' }), /not a notification kind/);
  t.throws(() => loadConfig({ NOTIFICATION_LINK_SECRET: 'short' }), ConfigError, 'a link key of at least 32 characters');
});
