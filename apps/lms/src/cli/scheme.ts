import { CREDIT_ROUNDINGS, type CreditRounding, type EvaluationItem } from '@lms/db';
import { listSchemes, readScheme, type SchemeInput, schemeProblems, upsertScheme } from '../domain/evidence/schemes.js';
import { type CommandGroup, CliError, parse, table, UsageError } from './command.js';

// `lms-admin scheme list|set`: credit schemes as data (docs/authoring.md, "Credit schemes").

const none = (v: number | null) => (v === null ? '-' : String(v));

/** "none" or "" clears an optional number; otherwise a whole number. */
function optionalNumber(value: string | undefined, name: string, current: number | null): number | null {
  if (value === undefined) return current;
  const v = value.trim().toLowerCase();
  if (v === 'none' || v === '') return null;
  if (!/^\d{1,4}$/.test(v)) throw new UsageError(`--${name} must be a whole number or "none" (got "${value}")`);
  return Number(v);
}

function flag(value: string | undefined, name: string, current: boolean): boolean {
  if (value === undefined) return current;
  if (value === 'yes' || value === 'true') return true;
  if (value === 'no' || value === 'false') return false;
  throw new UsageError(`--${name} takes yes or no (got "${value}")`);
}

function itemsOf(value: string | undefined, current: EvaluationItem[] | null): EvaluationItem[] | null {
  if (value === undefined) return current;
  if (value.trim() === 'standard') return null;
  try {
    const items = JSON.parse(value) as unknown;
    if (!Array.isArray(items)) throw new Error('not a list');
    return items as EvaluationItem[];
  } catch {
    throw new UsageError('--evaluation-items takes a JSON list of {"key","id","en"} or "standard"');
  }
}

export const schemeCommands: CommandGroup = {
  name: 'scheme',
  summary: 'credit schemes (list, set)',
  subcommands: [
    {
      name: 'list',
      summary: 'list the credit schemes and what each requires',
      usage: 'scheme list',
      help: 'Lists every credit scheme: its body, unit, minutes per unit and rounding, maximum per course and required evidence.',
      async run(args, ctx) {
        parse(args, {});
        const rows = await listSchemes(ctx.openDb().db);
        for (const l of table([
          ['CODE', 'UNIT', 'MIN/UNIT', 'ROUNDING', 'MAX', 'PRE-TEST', 'POST-TEST', 'EVALUATION', 'MINUTES %', 'ATTENDANCE %', 'BODY'],
          ...rows.map((s) => [
            s.code,
            s.unit,
            none(s.minutesPerUnit),
            s.rounding,
            String(s.maxPerCourse),
            s.requiresPreTest ? 'yes' : 'no',
            none(s.postTestMinScore),
            s.requiresEvaluation ? 'yes' : 'no',
            none(s.minMinutesShare),
            none(s.minAttendanceShare),
            s.body,
          ]),
        ]))
          ctx.io.out(l);
      },
    },
    {
      name: 'set',
      summary: 'add a credit scheme or change one',
      usage:
        'scheme set <CODE> [--body <text>] [--unit <name>] [--minutes-per-unit <n|none>] [--rounding down|nearest|half] [--max-per-course <n>] [--pre-test yes|no] [--post-test-min <0-100|none>] [--evaluation yes|no] [--minutes-share <1-100|none>] [--attendance-share <1-100|none>] [--evaluation-items <json|standard>]',
      help: [
        'Adds a scheme (--body, --unit and --max-per-course then required) or changes the options given',
        'of an existing one (a shipped scheme too: an upgrade never overwrites it). Accreditations',
        'already recorded keep their value; new ones are bounded by the new maximum.',
        '',
        'Examples:',
        '  lms-admin scheme set SKP-PPNI --body "Persatuan Perawat Nasional Indonesia" --unit SKP --max-per-course 25',
        '  lms-admin scheme set SKP-KEMENKES --minutes-share 90',
        '',
        'Options:',
        '  --body <text>                 the accrediting body (1-200 characters)',
        '  --unit <name>                 the unit as the body writes it (1-20 characters)',
        '  --minutes-per-unit <n|none>   minutes making one unit (1-600), or none: not counted from minutes',
        `  --rounding <r>                ${CREDIT_ROUNDINGS.join(', ')} (default down)`,
        '  --max-per-course <n>          the most one course may be accredited for (above 0, at most 1000)',
        '  --pre-test yes|no             a pre-test before the chapters',
        '  --post-test-min <n|none>      the post-test minimum score (0-100)',
        '  --evaluation yes|no           the evaluation form before the certificate',
        "  --minutes-share <n|none>      percent of each chapter's expected minutes (1-100)",
        "  --attendance-share <n|none>   percent of a live part's minutes attended (1-100)",
        '  --evaluation-items <json>     at most 20 items [{"key":"material","id":"...","en":"..."}], or standard',
      ].join('\n'),
      async run(args, ctx) {
        const { values, positionals } = parse(
          args,
          Object.fromEntries(
            [
              'body',
              'unit',
              'minutes-per-unit',
              'rounding',
              'max-per-course',
              'pre-test',
              'post-test-min',
              'evaluation',
              'minutes-share',
              'attendance-share',
              'evaluation-items',
            ].map((k) => [k, { type: 'string' as const }]),
          ),
          true,
        );
        if (positionals.length !== 1) throw new UsageError('scheme set takes one scheme code, e.g. SKP-PPNI');
        const code = positionals[0].trim().toUpperCase();
        const db = ctx.openDb().db;
        const current = await readScheme(db, code);
        if (!current) {
          for (const name of ['body', 'unit', 'max-per-course']) {
            if (values[name] === undefined) throw new UsageError(`a new scheme needs --${name}`);
          }
        }
        const max = values['max-per-course'];
        if (max !== undefined && !/^\d{1,4}(\.\d{1,2})?$/.test(max.trim())) {
          throw new UsageError(`--max-per-course must be a number above 0 and at most 1000, two decimals at most (got "${max}")`);
        }
        const input: SchemeInput = {
          code,
          body: values.body ?? current?.body ?? '',
          unit: values.unit ?? current?.unit ?? '',
          minutesPerUnit: optionalNumber(values['minutes-per-unit'], 'minutes-per-unit', current?.minutesPerUnit ?? null),
          rounding: (values.rounding ?? current?.rounding ?? 'down') as CreditRounding,
          maxPerCourse: max === undefined ? (current?.maxPerCourse ?? 0) : Number(max),
          requiresPreTest: flag(values['pre-test'], 'pre-test', current?.requiresPreTest ?? false),
          postTestMinScore: optionalNumber(values['post-test-min'], 'post-test-min', current?.postTestMinScore ?? null),
          requiresEvaluation: flag(values.evaluation, 'evaluation', current?.requiresEvaluation ?? false),
          minMinutesShare: optionalNumber(values['minutes-share'], 'minutes-share', current?.minMinutesShare ?? null),
          minAttendanceShare: optionalNumber(values['attendance-share'], 'attendance-share', current?.minAttendanceShare ?? null),
          evaluationItems: itemsOf(values['evaluation-items'], current?.evaluationItems ?? null),
        };
        const problems = schemeProblems(input);
        if (problems.length > 0) throw new UsageError(problems.join('; '));
        const saved = await upsertScheme(db, input, ctx.now());
        if (!saved) throw new CliError('the scheme was not stored');
        ctx.io.out(
          `Scheme ${saved.code} ${current ? 'changed' : 'added'}: ${saved.maxPerCourse} ${saved.unit} at most per course` +
            (saved.minutesPerUnit === null ? '.' : `, ${saved.minutesPerUnit} minutes a ${saved.unit} (${saved.rounding}).`),
        );
      },
    },
  ],
};
