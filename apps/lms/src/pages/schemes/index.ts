import { HtmlPage, RedirectResponse } from '@lms/contracts';
import { CREDIT_ROUNDINGS, type CreditRounding } from '@lms/db';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CreditScheme } from '../../domain/evidence/requirements.js';
import { listSchemes, readScheme, type SchemeInput, schemeProblems, upsertScheme } from '../../domain/evidence/schemes.js';
import { ForbiddenError } from '../../errors.js';
import { type PageContext, pageContext } from '../i18n/index.js';
import { formScope, PAGE, seeOther } from '../page-route.js';
import { sendPage } from '../send.js';
import { pageSession } from '../session.js';
import { type Html, html } from '../view/html.js';
import { page } from '../view/layout.js';
import { schemesWords } from './messages.js';

// /dashboard/schemes: the credit schemes (docs/authoring.md, "Credit schemes"), for super_admin
// only: the list with what each requires, and a form adding or changing one (the same domain code
// as `lms-admin scheme set`; a wrong value is a 422 page naming each problem). Plain form (csrf: 'form').

const Loose = z.object({}).passthrough().nullish();
const FlashQuery = z.object({ done: z.unknown().optional() });

async function superAdmin(app: Parameters<FastifyPluginAsyncZod>[0], request: FastifyRequest) {
  const session = await pageSession(app, request);
  if (session.caller.role !== 'super_admin') throw new ForbiddenError(pageContext(app, request).t.enrol.forbidden.notAllowed);
  return session;
}

const str = (form: Record<string, unknown>, name: string) => (typeof form[name] === 'string' ? (form[name] as string).trim() : '');
/** An optional whole number: empty is none; anything else not a whole number is NaN (a problem). */
const optionalInt = (v: string) => (v === '' ? null : /^\d{1,4}$/.test(v) ? Number(v) : Number.NaN);

/** The scheme a form sends (the code upper-cased); undefined values become problems in schemeProblems. */
function schemeOfForm(form: Record<string, unknown>, current: CreditScheme | null): SchemeInput {
  const max = str(form, 'maxPerCourse');
  return {
    code: str(form, 'code').toUpperCase(),
    body: str(form, 'body'),
    unit: str(form, 'unit'),
    minutesPerUnit: optionalInt(str(form, 'minutesPerUnit')),
    rounding: (str(form, 'rounding') || 'down') as CreditRounding,
    maxPerCourse: /^\d{1,4}(\.\d{1,2})?$/.test(max) ? Number(max) : Number.NaN,
    requiresPreTest: form.requiresPreTest === 'on',
    postTestMinScore: optionalInt(str(form, 'postTestMinScore')),
    requiresEvaluation: form.requiresEvaluation === 'on',
    minMinutesShare: optionalInt(str(form, 'minMinutesShare')),
    minAttendanceShare: optionalInt(str(form, 'minAttendanceShare')),
    evaluationItems: current?.evaluationItems ?? null,
  };
}

function view(ctx: PageContext, rows: CreditScheme[], notice: Html | false): Html {
  const w = schemesWords(ctx);
  const n = (v: number | null) => (v === null ? w.none : String(v));
  const yn = (v: boolean) => (v ? w.yes : w.no);
  const cols = [
    w.code,
    w.body,
    w.unit,
    w.minutesPerUnit,
    w.rounding,
    w.maxPerCourse,
    w.preTest,
    w.postTestMin,
    w.evaluation,
    w.minutesShare,
    w.attendanceShare,
  ];
  return html`<h1>${w.title}</h1>
<p>${w.intro}</p>
${notice}
<div class="table-wrap"><table class="responsive">
<thead><tr>${cols.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
<tbody>
${rows.map(
  (s) => html`<tr>
<td data-label="${w.code}"><code>${s.code}</code></td>
<td data-label="${w.body}">${s.body}</td>
<td data-label="${w.unit}">${s.unit}</td>
<td data-label="${w.minutesPerUnit}" class="num">${n(s.minutesPerUnit)}</td>
<td data-label="${w.rounding}">${s.rounding}</td>
<td data-label="${w.maxPerCourse}" class="num">${ctx.f.number(s.maxPerCourse)}</td>
<td data-label="${w.preTest}">${yn(s.requiresPreTest)}</td>
<td data-label="${w.postTestMin}" class="num">${n(s.postTestMinScore)}</td>
<td data-label="${w.evaluation}">${yn(s.requiresEvaluation)}</td>
<td data-label="${w.minutesShare}" class="num">${n(s.minMinutesShare)}</td>
<td data-label="${w.attendanceShare}" class="num">${n(s.minAttendanceShare)}</td>
</tr>
`,
)}</tbody></table></div>
<section aria-labelledby="edit-scheme"><h2 id="edit-scheme">${w.edit}</h2>
<p class="muted">${w.editHelp}</p>
<form method="post" action="/dashboard/schemes" class="stack">
<label for="s-code">${w.code}</label> <input id="s-code" name="code" required maxlength="20" pattern="[A-Za-z][A-Za-z0-9-]{0,19}">
<label for="s-body">${w.body}</label> <input id="s-body" name="body" required maxlength="200">
<label for="s-unit">${w.unit}</label> <input id="s-unit" name="unit" required maxlength="20">
<label for="s-minutes">${w.minutesPerUnit}</label> <input id="s-minutes" name="minutesPerUnit" inputmode="numeric" maxlength="3">
<label for="s-rounding">${w.rounding}</label> <select id="s-rounding" name="rounding">${CREDIT_ROUNDINGS.map((r) => html`<option value="${r}">${r}</option>`)}</select>
<label for="s-max">${w.maxPerCourse}</label> <input id="s-max" name="maxPerCourse" required inputmode="decimal" maxlength="7">
<label><input type="checkbox" name="requiresPreTest"> ${w.preTest}</label>
<label for="s-post">${w.postTestMin}</label> <input id="s-post" name="postTestMinScore" inputmode="numeric" maxlength="3">
<label><input type="checkbox" name="requiresEvaluation"> ${w.evaluation}</label>
<label for="s-share">${w.minutesShare}</label> <input id="s-share" name="minMinutesShare" inputmode="numeric" maxlength="3">
<label for="s-attendance">${w.attendanceShare}</label> <input id="s-attendance" name="minAttendanceShare" inputmode="numeric" maxlength="3">
<button type="submit">${w.save}</button>
</form></section>`;
}

const schemesPage: FastifyPluginAsyncZod = async (app) => {
  formScope(app, 4096);

  app.get(
    '/schemes',
    { config: { auth: true }, schema: { hide: true, tags: ['pages'], querystring: FlashQuery, response: { 200: HtmlPage } } },
    async (request, reply) => {
      const session = await superAdmin(app, request);
      const ctx = pageContext(app, request);
      const w = schemesWords(ctx);
      const notice = request.query.done === 'saved' && html`<p class="notice" role="status">${w.saved}</p>`;
      const body = view(ctx, await listSchemes(app.db), notice);
      return sendPage(reply, page(ctx, w.title, body, { user: session.user, current: '/dashboard' }));
    },
  );

  app.post(
    '/schemes',
    {
      config: { auth: true as const, csrf: 'form' as const },
      schema: {
        ...PAGE,
        summary: 'Add-or-change form of the credit schemes page',
        body: Loose,
        response: { 200: HtmlPage, 303: RedirectResponse, 422: HtmlPage },
      },
    },
    async (request, reply) => {
      const session = await superAdmin(app, request);
      const ctx = pageContext(app, request);
      const w = schemesWords(ctx);
      const form = (request.body ?? {}) as Record<string, unknown>;
      const code = str(form, 'code').toUpperCase();
      const current = /^[A-Z][A-Z0-9-]{0,19}$/.test(code) ? await readScheme(app.db, code) : null;
      const input = schemeOfForm(form, current);
      const problems = schemeProblems(input);
      if (problems.length > 0) {
        const notice = html`<div class="error" role="alert"><p>${w.invalid}</p><ul>${problems.map((p) => html`<li>${p}</li>`)}</ul></div>`;
        return sendPage(
          reply,
          page(ctx, w.title, view(ctx, await listSchemes(app.db), notice), { user: session.user, current: '/dashboard' }),
          422,
        );
      }
      await upsertScheme(app.db, input, app.clock());
      return seeOther(reply, '/dashboard/schemes?done=saved');
    },
  );
};

export default schemesPage;
