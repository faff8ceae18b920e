import { LearningCourseIdParams, RedirectResponse } from '@lms/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { assertManages } from '../../domain/learning/attempt-grants.js';
import { loadCoursePath } from '../../domain/learning/course-path.js';
import { MIN_RESPONSES_SHOWN } from '../../domain/evidence/evaluation.js';
import { periodEvaluationSummary, type ReportPeriod } from '../../domain/evidence/reports.js';
import { evaluationCsv, participantCsv, participantXlsx } from '../../documents/report-files.js';
import { sendPage } from '../send.js';
import { pageSession } from '../session.js';
import { attr, href, html } from '../view/html.js';
import { page } from '../view/layout.js';
import { PAGE, pageOptions, signedIn } from '../page-route.js';

// Reports per body (docs/authoring.md, "Reports per body"): a course's managers (owner teacher,
// admins of its institution, super_admin; anyone else 403) choose a period and download the
// participant list as CSV or XLSX, and read or download the evaluation summary. The files stream
// from the database page by page (documents/report-files.ts).

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const day = z
  .string()
  .regex(DAY, 'A date as YYYY-MM-DD')
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), 'Not a date');
/** The period: [from, to) in UTC days; by default every date (2000-01-01 to 2100-01-01). */
export const ReportQuery = z
  .object({
    from: day.default('2000-01-01'),
    to: day.default('2100-01-01'),
    basis: z.enum(['certificate', 'enrolment']).default('certificate'),
  })
  .strict()
  .refine((q) => q.from < q.to, { message: '`from` must be before `to`', path: ['to'] });

const periodOf = (q: z.infer<typeof ReportQuery>): ReportPeriod => ({
  from: new Date(`${q.from}T00:00:00Z`),
  to: new Date(`${q.to}T00:00:00Z`),
  basis: q.basis,
});

const FILE_TYPES = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;

const FILE = {
  config: { auth: true as const, documentLimited: true },
  schema: { ...PAGE, params: LearningCourseIdParams, querystring: ReportQuery, response: { 200: z.any(), 302: RedirectResponse } },
};

const reportPages: FastifyPluginAsyncZod = async (app) => {
  app.get('/courses/:id/reports', pageOptions({ params: LearningCourseIdParams, querystring: ReportQuery }), async (request, reply) => {
    const { session, ctx } = await signedIn(app, request);
    const { t, f } = ctx;
    const e = t.reports;
    const courseId = request.params.id;
    await assertManages(app.db, session.caller, courseId);
    const q = request.query;
    const [path, summary] = await Promise.all([
      loadCoursePath(app.db, session.caller.userId, courseId, 'preview'),
      periodEvaluationSummary(app.db, courseId, periodOf(q)),
    ]);
    const file = (name: string) => href('/dashboard/courses', courseId, 'reports', name).withQuery(q);
    const body = html`<p><a href="${href('/dashboard/courses', courseId, 'learners')}">${t.path.manager.learners}</a></p>
<h1>${e.reportsTitle(path.courseName)}</h1>
<p>${e.reportsIntro}</p>
<form method="get" action="${href('/dashboard/courses', courseId, 'reports')}" class="card filters">
<label>${e.from} <input type="date" name="from" value="${q.from}" required></label>
<label>${e.to} <input type="date" name="to" value="${q.to}" required></label>
<label>${e.basis} <select name="basis"><option value="certificate"${attr('selected', q.basis === 'certificate')}>${e.basisCertificate}</option><option value="enrolment"${attr('selected', q.basis === 'enrolment')}>${e.basisEnrolment}</option></select></label>
<button type="submit">OK</button>
</form>
<p><a href="${file('participants.csv')}" download>${e.csv}</a> · <a href="${file('participants.xlsx')}" download>${e.xlsx}</a> · <a href="${file('evaluation.csv')}" download>${e.evaluationCsv}</a></p>
<section aria-labelledby="evaluation"><h2 id="evaluation">${e.evaluationTitle}</h2>
<p class="muted">${e.evaluationNote} ${e.responses(summary.responses)}</p>
<div class="table-wrap"><table><thead><tr><th scope="col">${e.item}</th><th scope="col" class="num">${e.average}</th><th scope="col" class="num">${e.answers}</th></tr></thead>
<tbody>${summary.items.map((i) => html`<tr><td>${ctx.locale === 'id' ? i.id : i.en}</td><td class="num">${i.average === null ? '—' : f.number(i.average)}</td><td class="num">${f.number(i.answers)}</td></tr>`)}</tbody></table></div>
<h3>${e.comments}</h3>
${summary.responses < MIN_RESPONSES_SHOWN ? html`<p class="muted">${t.evidence.fewResponses(MIN_RESPONSES_SHOWN)}</p>` : summary.comments.length === 0 ? html`<p class="muted">${e.noComments}</p>` : html`<ul>${summary.comments.map((c) => html`<li>${c}</li>`)}</ul>`}
</section>`;
    return sendPage(reply, page(ctx, e.reportsTitle(path.courseName), body, { user: session.user, current: '/dashboard' }));
  });

  // The three downloads: the course's managers only, never cached, named by course and period.
  const download =
    (file: string, ext: 'csv' | 'xlsx', make: (courseId: number, period: ReportPeriod) => unknown) =>
    async (
      request: FastifyRequest<{ Params: z.infer<typeof LearningCourseIdParams>; Querystring: z.infer<typeof ReportQuery> }>,
      reply: FastifyReply,
    ) => {
      const session = await pageSession(app, request);
      const courseId = request.params.id;
      await assertManages(app.db, session.caller, courseId);
      return reply
        .type(FILE_TYPES[ext])
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', `attachment; filename="course-${courseId}-${file}-${request.query.from}-${request.query.to}.${ext}"`)
        .send(await make(courseId, periodOf(request.query)));
    };
  app.get(
    '/courses/:id/reports/participants.csv',
    FILE,
    download('participants', 'csv', (id, period) => participantCsv(app.db, id, period)),
  );
  app.get(
    '/courses/:id/reports/participants.xlsx',
    FILE,
    download('participants', 'xlsx', (id, period) => participantXlsx(app.db, id, period)),
  );
  app.get(
    '/courses/:id/reports/evaluation.csv',
    FILE,
    download('evaluation', 'csv', (id, period) => evaluationCsv(app.db, id, period)),
  );
};

export default reportPages;
