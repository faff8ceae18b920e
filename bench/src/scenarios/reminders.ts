import { type Notify, REMINDER_DEFAULTS, scanReminders } from '@lms/lms/reminders';
import { sql } from 'drizzle-orm';
import { log } from '../options.js';
import type { ScenarioContext } from './context.js';

/**
 * Row 50r: one hourly reminder scan (scanReminders: course endings, inactivity, expiring
 * transfers, credit progress) over the whole synthetic data set, one at a time, against the
 * simplest full read of the enrolments (row 7's baseline, shared). Inactivity has no column to
 * start from and walks every enrolment in id ranges of 500 (docs/operations.md, "Reminders"):
 * the ratio says what that walk costs next to counting the same rows. The notifications found
 * are counted, not recorded (the records are measured where they are written), so each scan
 * finds the same ones. Report only.
 */
export async function reminderScenario(ctx: ScenarioContext) {
  const { run, enrollmentCount } = ctx;
  const db = ctx.filled.handle.db;
  let asked = 0;
  const notify: Notify = async () => ({ id: ++asked, created: false });
  const settings = { ...REMINDER_DEFAULTS, publicUrl: 'http://bench.test', timeZone: 'Asia/Jakarta' };
  const now = new Date();
  const probe = await scanReminders(db, now, notify, settings);
  log(`50r: one scan asks for ${JSON.stringify(probe.requested)}`);
  const baselineName = `SELECT count(*) FROM enrollments (${enrollmentCount.toLocaleString('en-US')} rows)`;
  await run.compare(
    {
      id: '50r',
      scenario: `scanReminders, one hourly scan (${asked.toLocaleString('en-US')} due; batches of ${REMINDER_DEFAULTS.batchSize})`,
      baselineName,
      kind: 'latency',
    },
    run.measureLoop(
      'reminders scan',
      async () => {
        await scanReminders(db, now, notify, settings);
      },
      1,
    ),
    () =>
      run.measureLoop(
        baselineName,
        async () => {
          await db.execute(sql`select count(*) from enrollments`);
        },
        1,
      ),
  );
}
