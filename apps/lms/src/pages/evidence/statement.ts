import { RedirectResponse } from '@lms/contracts';
import { CREDIT_SCHEME } from '@lms/contracts/lists';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { yearlyStatement } from '../../domain/evidence/statement.js';
import { statementPdf } from '../../documents/statement-pdf.js';
import { CSV_DIALECTS, csvLine } from '../../lib/csv.js';
import { pageSession } from '../session.js';
import { PAGE, signedIn } from '../page-route.js';

// A member's yearly statement per scheme (/learn/credits/statement.{csv,pdf}?year=&scheme=),
// linked from each year's total on their credits page: their own credits only (the session's),
// each with its accreditation number, course, date, certificate code and units.

const StatementQuery = z
  .object({
    year: z.coerce.number().int().min(2000).max(2100),
    scheme: z.string().regex(CREDIT_SCHEME),
  })
  .strict();
const OPTIONS = {
  config: { auth: true as const, documentLimited: true },
  schema: { ...PAGE, querystring: StatementQuery, response: { 200: z.any(), 302: RedirectResponse } },
};

const statementPages: FastifyPluginAsyncZod = async (app) => {
  app.get('/credits/statement.csv', OPTIONS, async (request, reply) => {
    const { session, ctx } = await signedIn(app, request);
    const st = ctx.t.reports.statement;
    const c = ctx.t.credits;
    const { year, scheme } = request.query;
    const s = await yearlyStatement(app.db, session.caller.userId, year, scheme, app.config.PAGES_TIME_ZONE);
    const csv = CSV_DIALECTS[ctx.locale];
    let out = csvLine([c.member, session.user.name], csv) + csvLine([c.membershipId, session.user.membershipId], csv);
    out += csvLine([st.body, s.body], csv) + csvLine([], csv);
    out += csvLine([c.date, st.reference, c.course, st.code, `${st.units} (${s.unit})`], csv);
    for (const l of s.lines)
      out += csvLine([l.earnedAt.toISOString().slice(0, 10), l.accreditationReference, l.courseName, l.certificateCode, l.amount], csv);
    out += csvLine([st.total, null, null, null, s.total], csv);
    return reply
      .type('text/csv; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header('content-disposition', `attachment; filename="${st.file(scheme, year)}.csv"`)
      .send(out);
  });

  app.get('/credits/statement.pdf', OPTIONS, async (request, reply) => {
    const session = await pageSession(app, request);
    const { ctx } = await signedIn(app, request);
    const { f } = ctx;
    const st = ctx.t.reports.statement;
    const c = ctx.t.credits;
    const { year, scheme } = request.query;
    const s = await yearlyStatement(app.db, session.caller.userId, year, scheme, app.config.PAGES_TIME_ZONE);
    const pdf = await statementPdf({ name: session.user.name, membershipId: session.user.membershipId }, s, {
      title: st.title(scheme, year),
      lang: ctx.locale,
      member: c.member,
      membershipId: c.membershipId,
      body: st.body,
      printedOn: c.printedOn(f.dateTime(app.clock()) ?? ''),
      headers: { date: c.date, reference: st.reference, course: c.course, code: st.code, units: st.units },
      total: st.total,
      none: st.none,
      day: (d) => f.day(d) ?? '',
      number: (n) => f.number(n),
      issuer: app.config.PUBLIC_URL,
    });
    return reply
      .type('application/pdf')
      .header('content-disposition', `attachment; filename="${st.file(scheme, year)}.pdf"`)
      .header('cache-control', 'no-store')
      .send(pdf as never);
  });
};

export default statementPages;
