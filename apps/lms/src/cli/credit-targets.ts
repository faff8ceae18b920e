import { CREDIT_SCHEME, CREDIT_SCHEME_MESSAGE, CREDIT_SCHEME_EXAMPLES, CREDIT_TARGET_MAX } from '@lms/contracts';
import { creditTargets, partners } from '@lms/db';
import { and, asc, eq } from 'drizzle-orm';
import { CliError, parse, type Subcommand, table, UsageError } from './command.js';

/** A partner's issuer as `partner add` stores it (lower-cased). */
function issuerArg(positionals: string[], action: string): string {
  if (positionals.length !== 1)
    throw new UsageError(`partner credit-target ${action} takes the partner's issuer, e.g. asosiasi.example.or.id`);
  return positionals[0].trim().toLowerCase();
}

function schemeOf(value: string | undefined): string {
  if (value === undefined) throw new UsageError('--scheme is required (e.g. --scheme SKP)');
  const scheme = value.trim().toUpperCase();
  if (!CREDIT_SCHEME.test(scheme)) {
    throw new UsageError(`--scheme ${CREDIT_SCHEME_MESSAGE} (got "${value}")`);
  }
  return scheme;
}

/** An amount > 0 and at most 9999.99, with at most two decimals. */
function amountOf(value: string | undefined, name: string): number {
  if (value === undefined) throw new UsageError(`--${name} is required`);
  const v = value.trim();
  if (!/^\d{1,4}(\.\d{1,2})?$/.test(v) || Number(v) <= 0 || Number(v) > CREDIT_TARGET_MAX) {
    throw new UsageError(`--${name} must be a number above 0 and at most ${CREDIT_TARGET_MAX}, with at most 2 decimals (got "${value}")`);
  }
  return Number(v);
}

function yearsOf(value: string): number {
  if (!/^\d{1,2}$/.test(value.trim()) || Number(value) < 1 || Number(value) > 10) {
    throw new UsageError(`--rolling-years must be a whole number from 1 to 10 (got "${value}")`);
  }
  return Number(value);
}

/** The period an invocation names: --per-year, or --rolling-years N (with --amount for set). */
function periodOf(values: Record<string, string | undefined>, withAmount: boolean) {
  const perYear = values['per-year'];
  const rolling = values['rolling-years'];
  if ((perYear !== undefined ? 1 : 0) + (rolling !== undefined ? 1 : 0) !== 1) {
    throw new UsageError('give exactly one of --per-year or --rolling-years <n>');
  }
  if (perYear !== undefined) {
    if (values.amount !== undefined) throw new UsageError('--amount goes with --rolling-years; --per-year takes the amount itself');
    return { period: 'calendar_year' as const, years: 1, amount: withAmount ? amountOf(perYear, 'per-year') : 0 };
  }
  const years = yearsOf(rolling as string);
  return { period: 'rolling' as const, years, amount: withAmount ? amountOf(values.amount, 'amount') : 0 };
}

const describe = (t: { scheme: string; period: string; years: number; amount: number }) =>
  t.period === 'calendar_year' ? `${t.amount} ${t.scheme} per calendar year` : `${t.amount} ${t.scheme} per ${t.years} years (rolling)`;

/** `partner credit-target set|list|remove`: the credit targets shown to a partner's members as progress. */
export const creditTargetCommand: Subcommand = {
  name: 'credit-target',
  summary: "credit targets of a partner's members (set, list, remove)",
  usage:
    'partner credit-target set <issuer> --scheme <SKP> (--per-year <n> | --rolling-years <y> --amount <n>) | list [<issuer>] | remove <issuer> --scheme <SKP> (--per-year | --rolling-years <y>)',
  help: [
    'A target is shown to every member holding an identity of the partner, as progress on their',
    'dashboard and credit record: "12 / 30 SKP in 2026". Periods: a calendar year (--per-year) or',
    'the last <y> years up to today (--rolling-years, 1 to 10), in the time zone of the pages.',
    'Setting a target again for the same scheme and period replaces its amount.',
    '',
    'Examples:',
    '  lms-admin partner credit-target set asosiasi.example.or.id --scheme SKP --per-year 30',
    '  lms-admin partner credit-target set asosiasi.example.or.id --scheme SKP --rolling-years 3 --amount 120',
    '  lms-admin partner credit-target list',
    '  lms-admin partner credit-target remove asosiasi.example.or.id --scheme SKP --rolling-years 3',
    '',
    'Options:',
    `  --scheme <name>         the credit scheme, as courses name it (${CREDIT_SCHEME_EXAMPLES}, ...)`,
    '  --per-year <n>          amount per calendar year (above 0, at most 9999.99); for remove: no value needed',
    '  --rolling-years <y>     window of y years (1-10), with --amount <n>',
  ].join('\n'),
  async run(args, ctx) {
    const [action, ...rest] = args;
    if (action === 'list') {
      const { positionals } = parse(rest, {}, true);
      if (positionals.length > 1) throw new UsageError('partner credit-target list takes at most one issuer');
      const db = ctx.openDb().db;
      const issuer = positionals[0]?.trim().toLowerCase();
      const rows = await db
        .select({
          issuer: partners.issuer,
          scheme: creditTargets.scheme,
          period: creditTargets.period,
          years: creditTargets.years,
          amount: creditTargets.amount,
        })
        .from(creditTargets)
        .innerJoin(partners, eq(partners.id, creditTargets.partnerId))
        .where(issuer ? eq(partners.issuer, issuer) : undefined)
        .orderBy(asc(partners.issuer), asc(creditTargets.scheme), asc(creditTargets.period), asc(creditTargets.years));
      if (rows.length === 0) {
        ctx.io.err('No credit targets. Set one with: lms-admin partner credit-target set <issuer> --scheme SKP --per-year 30');
        return;
      }
      for (const l of table([
        ['ISSUER', 'SCHEME', 'PERIOD', 'YEARS', 'AMOUNT'],
        ...rows.map((r) => [r.issuer, r.scheme, r.period, String(r.years), String(r.amount)]),
      ]))
        ctx.io.out(l);
      return;
    }
    if (action !== 'set' && action !== 'remove') throw new UsageError('partner credit-target takes set, list or remove');
    // --per-year takes no value on remove: give it one for the parser ("--per-year" alone).
    const normalised = action === 'remove' ? rest.map((a) => (a === '--per-year' ? '--per-year=1' : a)) : rest;
    const { values, positionals } = parse(
      normalised,
      { scheme: { type: 'string' }, 'per-year': { type: 'string' }, 'rolling-years': { type: 'string' }, amount: { type: 'string' } },
      true,
    );
    const issuer = issuerArg(positionals, action);
    const scheme = schemeOf(values.scheme);
    const target = periodOf(values, action === 'set');
    const db = ctx.openDb().db;
    const [partner] = await db.select({ id: partners.id }).from(partners).where(eq(partners.issuer, issuer)).limit(1);
    if (!partner) throw new CliError(`no partner with issuer ${issuer}`);
    const key = and(
      eq(creditTargets.partnerId, partner.id),
      eq(creditTargets.scheme, scheme),
      eq(creditTargets.period, target.period),
      eq(creditTargets.years, target.years),
    );
    if (action === 'remove') {
      const removed = await db.delete(creditTargets).where(key).returning({ id: creditTargets.id });
      if (removed.length === 0) throw new CliError(`${issuer} has no target of ${scheme} for that period`);
      ctx.io.out(
        `Credit target of ${issuer} removed: ${scheme} ${target.period === 'calendar_year' ? 'per calendar year' : `per ${target.years} years`}.`,
      );
      return;
    }
    await db
      .insert(creditTargets)
      .values({ partnerId: partner.id, scheme, period: target.period, years: target.years, amount: target.amount })
      .onConflictDoUpdate({
        target: [creditTargets.partnerId, creditTargets.scheme, creditTargets.period, creditTargets.years],
        set: { amount: target.amount },
      });
    ctx.io.out(`Credit target of ${issuer}: ${describe({ scheme, ...target })}.`);
  },
};
