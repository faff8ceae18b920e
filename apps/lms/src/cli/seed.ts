import { migrate } from '@lms/db';
import { seedDemo, seedSynthetic, type SyntheticProgress } from '@lms/db/seed';
import { DEMO_SEED_LOCK_ID, saveDemoKey } from '../demo-key.js';
import { type CliIo, type CommandGroup, describeDb, parse, wholeNumber } from './command.js';

export const seedCommands: CommandGroup = {
  name: 'seed',
  summary: 'fill the database with demo or synthetic data',
  subcommands: [
    {
      name: 'demo',
      summary: 'a small believable catalog, people and activity (idempotent)',
      usage: 'seed demo',
      help: [
        'Applies pending migrations, then adds the demo data: categories, about thirty courses with',
        'modules, chapters, quizzes and final exams, bundles, students with enrollments, progress,',
        'purchases and certificates over the last 60 days, institution 1, a teacher (teacher@demo.lms),',
        'an admin, a super_admin and the demo partner (demo-partner.local).',
        "Running it again adds nothing. The demo teacher's API key is printed on the run that creates",
        'it (on the embedded database it is also kept in DATA_DIR/demo-api-key.txt, mode 600).',
      ].join('\n'),
      async run(args, ctx) {
        parse(args, {});
        const db = ctx.openDb({ longStatements: true });
        await migrate(db);
        const result = await db.withExclusiveLock(DEMO_SEED_LOCK_ID, () =>
          seedDemo(db.db, { now: ctx.now(), demoPartnerJwksUrl: ctx.config.DEMO_PARTNER_JWKS_URL }),
        );
        const added = Object.entries(result.inserted).filter(([, n]) => n > 0);
        ctx.io.err(`Demo data on ${describeDb(db, ctx.config)}:`);
        ctx.io.err(added.length === 0 ? '  already seeded, nothing added' : `  added ${added.map(([t, n]) => `${n} ${t}`).join(', ')}`);
        if (result.apiKey) {
          if (db.kind === 'pglite') {
            const file = await saveDemoKey(ctx.config.DATA_DIR, result.apiKey);
            ctx.io.err(`  demo API key kept in ${file}`);
          }
          ctx.io.err(`  demo API key of ${result.teacherEmail} (shown once):`);
          ctx.io.out(result.apiKey);
        }
      },
    },
    {
      name: 'synthetic',
      summary: 'a large generated data set for load tests (PostgreSQL)',
      usage: 'seed synthetic --courses N --students N --enrollments N --completions N',
      help: [
        'Generates the rows in the database server (INSERT ... SELECT generate_series) in batches, with',
        'the counter triggers off during the load and the counters recomputed at the end. Adds to what',
        'is there. Enrollments go to distinct courses per student (at most students x courses);',
        'completions are chapters of the enrolled course (about N in total). Progress on stderr.',
        '',
        'Options (all required; 1_000_000 style is accepted):',
        '  --courses N       courses (4 modules each, chapters enough for the completions)',
        '  --students N      students',
        '  --enrollments N   enrollments',
        '  --completions N   chapter completions',
      ].join('\n'),
      async run(args, ctx) {
        const { values } = parse(args, {
          courses: { type: 'string' },
          students: { type: 'string' },
          enrollments: { type: 'string' },
          completions: { type: 'string' },
        });
        const size = {
          courses: wholeNumber(values.courses, 'courses'),
          students: wholeNumber(values.students, 'students'),
          enrollments: wholeNumber(values.enrollments, 'enrollments'),
          completions: wholeNumber(values.completions, 'completions'),
        };
        const db = ctx.openDb({ longStatements: true });
        await migrate(db);
        const bar = progressBar(ctx.io);
        let result: Awaited<ReturnType<typeof seedSynthetic>>;
        try {
          result = await seedSynthetic(db.db, size, bar.update, { now: ctx.now() });
        } catch (err) {
          bar.done();
          throw err;
        }
        bar.done();
        ctx.io.out(
          `Synthetic data (tag ${result.tag}) on ${describeDb(db, ctx.config)}: ${result.courses} courses, ${result.chapters} chapters, ` +
            `${result.students} students, ${result.enrollments} enrollments, ${result.completions} completions in ${(result.ms / 1000).toFixed(1)} s`,
        );
      },
    },
  ],
};

/** One line per phase, redrawn in place on a terminal; a line per ~10% otherwise. */
function progressBar(io: CliIo) {
  const started = Date.now();
  let lastPhase = '';
  let lastTenth = -1;
  let lastDraw = 0;
  const render = (p: SyntheticProgress) => {
    const ratio = p.total === 0 ? 1 : Math.min(1, p.done / p.total);
    const width = 30;
    const filled = Math.round(ratio * width);
    const secs = ((Date.now() - started) / 1000).toFixed(0);
    return `${p.phase.padEnd(12)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}%  ${p.done.toLocaleString('en')}/${p.total.toLocaleString('en')}  ${secs}s`;
  };
  return {
    update(p: SyntheticProgress) {
      const tenth = p.total === 0 ? 10 : Math.floor((p.done / p.total) * 10);
      if (io.isTty) {
        const now = Date.now();
        if (p.phase !== lastPhase && lastPhase !== '') io.progress('\n');
        if (p.phase !== lastPhase || now - lastDraw > 100 || p.done === p.total) {
          io.progress(`\r${render(p)}`);
          lastDraw = now;
        }
      } else if (p.phase !== lastPhase || tenth !== lastTenth) {
        io.err(render(p));
      }
      lastPhase = p.phase;
      lastTenth = tenth;
    },
    done() {
      if (io.isTty && lastPhase !== '') io.progress('\n');
    },
  };
}
