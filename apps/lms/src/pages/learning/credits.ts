import { RedirectResponse } from '@lms/contracts';
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  type CreditRecord,
  type MemberCredits,
  isCounted,
  memberCredits,
  creditsCsv,
  type TargetProgress,
  zonedParts,
  zonedYear,
} from '../../domain/learning/credits.js';
import { creditsPdf } from '../../documents/credits-pdf.js';
import { CSV_DIALECTS } from '../../lib/csv.js';
import type { PageContext } from '../i18n/index.js';
import { sendPage } from '../send.js';
import { type Html, href, html } from '../view/html.js';
import { page } from '../view/layout.js';
import { PAGE, pageOptions, signedIn } from '../page-route.js';

/** A record's status in words: counted, counted with an expired certificate, or voided. */
export function recordStatus(ctx: PageContext, r: CreditRecord): string {
  const c = ctx.t.credits;
  if (r.voidedAt) return c.voided;
  if (r.accreditation === null) return c.unaccredited;
  return r.certificateStatus === 'expired' ? c.expired : c.counted;
}

/** One target's progress: a <progress> and "12 / 30 SKP in 2026". */
export function targetProgress(ctx: PageContext, t: TargetProgress, year: number): Html {
  const c = ctx.t.credits;
  const words = c.progress(t.earned, t.target, t.scheme, t, year);
  return html`<p class="target"><span class="muted">${c.targetOf(t.partner)}</span><br>
<progress max="${t.target}" value="${Math.min(t.earned, t.target)}" aria-label="${c.progressLabel(t.scheme)}">${words}</progress> ${words}</p>`;
}

/** The member's credits now, and the current year, in the deployment's time zone (PAGES_TIME_ZONE). */
export async function creditsNow(app: FastifyInstance, userId: string) {
  const zone = app.config.PAGES_TIME_ZONE;
  const now = app.clock();
  return { now, zone, year: zonedYear(now, zone), credits: await memberCredits(app.db, userId, now, zone) };
}

/** The dashboard's small block: this year's counted credits per scheme, the targets, a link to the record. */
export function creditsThisYearSection(ctx: PageContext, { year, credits }: { year: number; credits: MemberCredits }): Html {
  const c = ctx.t.credits;
  const totals = credits.yearTotals.filter((t) => t.year === year);
  return html`<section aria-labelledby="credits-this-year">
<h2 id="credits-this-year">${c.thisYear}</h2>
<div class="card">
${
  totals.length === 0
    ? html`<p class="muted">${c.thisYearNone}</p>`
    : html`<ul class="figures">${totals.map(
        (t) => html`<li><span class="value">${ctx.f.number(t.amount)}</span><span class="label">${t.scheme} · ${year}</span></li>`,
      )}</ul>`
}
${credits.targets.map((t) => targetProgress(ctx, t, year))}
<p><a href="${href('/learn/credits')}">${c.seeAll}</a></p>
</div>
</section>`;
}

function recordsTable(ctx: PageContext, credits: MemberCredits): Html {
  const { f } = ctx;
  const c = ctx.t.credits;
  if (credits.records.length === 0) return html`<p class="muted">${c.none}</p>`;
  return html`<p class="muted">${c.accreditedOnly}</p><div class="table-wrap"><table class="responsive credits">
<caption class="sr-only">${c.records}</caption>
<thead><tr><th scope="col">${c.date}</th><th scope="col">${c.course}</th><th scope="col">${c.scheme}</th><th scope="col" class="num">${c.amount}</th><th scope="col">${c.status}</th><th scope="col">${c.certificate}</th></tr></thead>
<tbody>
${credits.records.map(
  (r) => html`<tr class="${isCounted(r) ? 'counted' : 'voided'}">
<td data-label="${c.date}">${f.day(r.earnedAt)}</td>
<td data-label="${c.course}">${r.voidedAt ? html`<s>${r.courseName}</s>` : r.courseName}</td>
<td data-label="${c.scheme}">${r.scheme}${r.accreditation ? html`<br><span class="muted">${r.accreditation.reference}</span>` : ''}</td>
<td data-label="${c.amount}" class="num">${r.voidedAt ? html`<s>${f.number(r.amount)}</s>` : f.number(r.amount)}</td>
<td data-label="${c.status}">${recordStatus(ctx, r)}</td>
<td data-label="${c.certificate}"><a href="${href('/certificates', r.certificateCode)}">${c.openCertificate}<span class="sr-only"> ${r.courseName}</span></a></td>
</tr>
`,
)}</tbody>
</table></div>`;
}

/** An ISO day (YYYY-MM-DD) in the deployment's zone, for file names. */
function isoDay(at: Date, zone: string): string {
  const p = zonedParts(at, zone);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/**
 * The member's own credit record (/learn/credits): the table, totals per year and over rolling
 * periods, the targets of their partners, and exports as CSV and PDF. There is no member id in
 * any of these URLs: each shows the signed-in person's own record only.
 */
const creditPages: FastifyPluginAsyncZod = async (app) => {
  app.get('/credits', pageOptions({}), async (request, reply) => {
    const { session, ctx } = await signedIn(app, request);
    const { f } = ctx;
    const c = ctx.t.credits;
    const { year, credits } = await creditsNow(app, session.caller.userId);
    const body = html`<h1>${c.title}</h1>
<p>${c.intro}</p>
<p>${c.export}: <a href="${href('/learn/credits.csv')}" download>${c.csv}</a> · <a href="${href('/learn/credits.pdf')}" download>${c.pdf}</a></p>
<p class="muted">${c.csvNote}</p>
${
  credits.targets.length > 0 &&
  html`<section aria-labelledby="targets"><h2 id="targets">${c.targets}</h2><div class="card">${credits.targets.map((t) => targetProgress(ctx, t, year))}</div></section>`
}
<section aria-labelledby="per-year"><h2 id="per-year">${c.perYear}</h2>
${
  credits.yearTotals.length === 0
    ? html`<p class="muted">${c.none}</p>`
    : html`<div class="table-wrap"><table class="year-totals"><thead><tr><th scope="col">${c.year}</th><th scope="col">${c.scheme}</th><th scope="col" class="num">${c.total}</th><th scope="col">${ctx.t.reports.statement.label}</th></tr></thead><tbody>
${credits.yearTotals.map((t) => html`<tr><td>${t.year}</td><td>${t.scheme}</td><td class="num">${f.number(t.amount)}</td><td>${ctx.t.reports.statement.label}: <a href="${href('/learn/credits/statement.pdf').withQuery({ year: t.year, scheme: t.scheme })}" download>PDF</a> · <a href="${href('/learn/credits/statement.csv').withQuery({ year: t.year, scheme: t.scheme })}" download>CSV</a></td></tr>`)}
</tbody></table></div>`
}
</section>
${
  credits.rollingTotals.length > 0 &&
  html`<section aria-labelledby="rolling"><h2 id="rolling">${c.rolling}</h2><ul>${credits.rollingTotals.map(
    (t) => html`<li>${t.scheme}, ${c.lastYears(t.years)} (${c.since(f.day(t.from) ?? '')}): <strong>${f.number(t.amount)}</strong></li>`,
  )}</ul></section>`
}
<section aria-labelledby="records"><h2 id="records">${c.records}</h2>
${recordsTable(ctx, credits)}
</section>`;
    return sendPage(reply, page(ctx, c.title, body, { user: session.user, current: '/dashboard' }));
  });

  app.get(
    '/credits.csv',
    { config: { auth: true, documentLimited: true }, schema: { ...PAGE, response: { 200: z.string(), 302: RedirectResponse } } },
    async (request, reply) => {
      const { session, ctx } = await signedIn(app, request);
      const { now, zone, credits } = await creditsNow(app, session.caller.userId);
      const csv = creditsCsv(credits, zone, ctx.t.credits.csvHeaders, (r) => recordStatus(ctx, r), CSV_DIALECTS[ctx.locale]);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${ctx.t.credits.csvFile}-${isoDay(now, zone)}.csv"`)
        .header('cache-control', 'no-store')
        .header('vary', 'Accept-Language, Cookie')
        .send(csv);
    },
  );

  app.get(
    '/credits.pdf',
    { config: { auth: true, documentLimited: true }, schema: { ...PAGE, response: { 302: RedirectResponse } } },
    async (request, reply) => {
      const { session, ctx } = await signedIn(app, request);
      const { f } = ctx;
      const c = ctx.t.credits;
      const { now, zone, year, credits } = await creditsNow(app, session.caller.userId);
      const pdf = await creditsPdf({ name: session.user.name, membershipId: session.user.membershipId }, credits, {
        title: c.pdfTitle,
        lang: ctx.locale,
        member: c.member,
        membershipId: c.membershipId,
        printedOn: c.printedOn(f.dateTime(now) ?? ''),
        headers: { date: c.date, course: c.course, scheme: c.scheme, amount: c.amount, status: c.status },
        perYear: c.perYear,
        rolling: c.rolling,
        targets: c.targets,
        none: c.none,
        day: (d) => f.day(d) ?? '',
        number: (n) => f.number(n),
        status: (r) => recordStatus(ctx, r),
        lastYears: (y) => c.lastYears(y),
        progress: (t) => c.progress(t.earned, t.target, t.scheme, t, year),
        issuer: app.config.PUBLIC_URL,
      });
      return (
        reply
          .type('application/pdf')
          .header('content-disposition', `attachment; filename="${c.csvFile}-${isoDay(now, zone)}.pdf"`)
          .header('cache-control', 'no-store')
          .header('vary', 'Accept-Language, Cookie')
          // Bytes, not a JSON answer: no serializer runs on a Buffer.
          .send(pdf as never)
      );
    },
  );
};

export default creditPages;
