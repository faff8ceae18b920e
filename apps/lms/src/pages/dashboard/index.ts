import type { PublicCourse } from '@lms/contracts';
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { findDraftCourseIds, findLearnerOverview } from '../../domain/learner-overview.js';
import { schemeTotalsOf } from '../../domain/learning/credits.js';
import { findVisibleCourses } from '../../domain/catalog/course-list.js';
import { computeProgressMetrics, type ProgressReport } from '../../domain/progress.js';
import type { PageContext } from '../i18n/index.js';
import { sendPage } from '../send.js';
import type { PageSession } from '../session.js';
import { barChart } from '../view/charts.js';
import { progressBar, statusBadge } from '../view/components.js';
import { type Html, href, html } from '../view/html.js';
import { page } from '../view/layout.js';
import { schemesWords } from '../schemes/messages.js';
import { webhooksWords } from '../webhooks/messages.js';
import { staffLearningSections } from '../learning/dashboard-sections.js';
import { loadCoursePath } from '../../domain/learning/course-path.js';
import { stepHref, stepName } from '../learning/outline.js';
import { pendingPurchasesSection } from '../learning/pending-purchases.js';
import { creditsNow, creditsThisYearSection } from '../learning/credits.js';
import { pageOptions, signedIn } from '../page-route.js';

const STAFF_COURSE_LIMIT = 50;
const CONTINUE_LIMIT = 20;

function chapterTotals(course: PublicCourse): { done: number; total: number } {
  let done = 0;
  let total = 0;
  for (const m of course.modules) {
    for (const c of m.chapters) {
      total += 1;
      if (c.completionPercentage >= 100) done += 1;
    }
  }
  return { done, total };
}

function figures(items: [string, string][]): Html {
  return html`<ul class="figures">${items.map(
    ([label, value]) => html`<li><span class="value">${value}</span><span class="label">${label}</span></li>`,
  )}</ul>`;
}

function certificateText(ctx: PageContext, course: PublicCourse): string {
  if (course.certificate.isGenerated) return ctx.t.certificate.issued;
  if (course.certificate.isEligible) return ctx.t.certificate.eligible;
  return '—';
}

function tierText(ctx: PageContext, tier: string | null): string {
  if (!tier) return ctx.t.common.none;
  return Object.hasOwn(ctx.t.tier, tier) ? ctx.t.tier[tier as keyof PageContext['t']['tier']] : tier;
}

async function learnerBody(app: FastifyInstance, ctx: PageContext, session: PageSession): Promise<Html> {
  const { t, f } = ctx;
  const col = t.dashboard.column;
  const { user } = session;
  const [overview, credits] = await Promise.all([
    findLearnerOverview(app.db, session.caller.userId),
    creditsNow(app, session.caller.userId),
  ]);
  // Credit earned in all, from the counted records (accredited, not voided), one figure per scheme:
  // never a sum of the courses' shown values, which mixes schemes and counts unaccredited ones.
  const totals = schemeTotalsOf(credits.credits.records);
  const earnedFigures: [string, string][] =
    totals.length === 0
      ? [[t.dashboard.creditsCounted(null), f.number(0)]]
      : totals.map((s) => [t.dashboard.creditsCounted(s.scheme), f.number(s.amount)]);
  // "Continue where you left off" for the courses not finished (a bounded number of paths).
  const paths = new Map(
    await Promise.all(
      overview.courses
        .filter((c) => c.status !== 'completed')
        .slice(0, CONTINUE_LIMIT)
        .map(async (c) => [c.id, await loadCoursePath(app.db, session.caller.userId, Number(c.id), 'learner')] as const),
    ),
  );
  const rows = overview.courses.map((c) => {
    const { done, total } = chapterTotals(c);
    const path = paths.get(c.id);
    const next = path?.continueAt;
    const hint =
      path &&
      (next
        ? html`<div><a href="${stepHref(next)}">${t.path.continueTo(stepName(ctx, next))}</a></div>${
            path.allChaptersDone &&
            path.final &&
            path.final.state !== 'done' &&
            html`<div class="muted">${t.path.finalLeft(path.final.name)}</div>`
          }`
        : !path.finished && html`<div class="muted">${t.path.waitsFor(path.waitingFor)}</div>`);
    return html`<tr>
<td data-label="${col.course}"><a href="${href('/dashboard/courses', c.id)}">${c.name}</a>${hint}</td>
<td data-label="${col.status}">${statusBadge(ctx, c.status)}</td>
<td data-label="${col.progress}">${progressBar(ctx, c.totalProgress, t.common.progressOf(c.name))}</td>
<td data-label="${col.chaptersDone}" class="num">${f.number(done)} / ${f.number(total)}</td>
<td data-label="${col.kum}" class="num">${c.nilaiKum === null ? '—' : f.number(c.nilaiKum)}</td>
<td data-label="${col.certificate}">${certificateText(ctx, c)}</td>
</tr>
`;
  });
  const courseList =
    overview.courses.length === 0
      ? html`<p class="muted">${t.dashboard.notEnrolled}</p>`
      : html`<div class="table-wrap"><table class="responsive">
<caption class="sr-only">${t.dashboard.yourCourses}</caption>
<thead><tr><th scope="col">${col.course}</th><th scope="col">${col.status}</th><th scope="col">${col.progress}</th><th scope="col" class="num">${col.chaptersDone}</th><th scope="col" class="num">${col.kum}</th><th scope="col">${col.certificate}</th></tr></thead>
<tbody>
${rows}</tbody>
</table></div>`;
  return html`<h1>${t.dashboard.welcome(user.name)}</h1>
<section aria-labelledby="summary">
<h2 id="summary">${t.dashboard.atAGlance}</h2>
${figures([
  [t.dashboard.coursesEnrolled, f.number(overview.courses.length)],
  [t.dashboard.completed, f.number(overview.completed)],
  [t.dashboard.certificates, f.number(overview.certificates)],
  ...earnedFigures,
])}
</section>
${await pendingPurchasesSection(app, ctx, session.caller.userId)}
${creditsThisYearSection(ctx, credits)}
<section aria-labelledby="courses">
<h2 id="courses">${t.dashboard.yourCourses}</h2>
${courseList}
</section>
<section aria-labelledby="profile">
<h2 id="profile">${t.dashboard.account}</h2>
<div class="card"><dl>
<dt>${t.dashboard.name}</dt><dd>${user.name}</dd>
<dt>${t.dashboard.email}</dt><dd>${user.email}</dd>
<dt>${t.dashboard.tier}</dt><dd>${tierText(ctx, user.tier)}</dd>
<dt>${t.dashboard.membershipId}</dt><dd>${user.membershipId ?? t.common.none}</dd>
</dl>
<p><a href="${href('/account/notifications')}">${t.notifications.title}</a></p></div>
</section>`;
}

/** The trailing 30 days' paid amounts in currencies other than the platform's, each on its own (never added in). */
function otherRevenue(ctx: PageContext, revenues: { currency: string; amount: number }[], currency: string): Html | false {
  const others = revenues.filter((r) => r.currency !== currency);
  return (
    others.length > 0 && html`<p class="muted">${ctx.t.dashboard.otherCurrencies(others.map((r) => ctx.f.money(r.amount, r.currency)))}</p>`
  );
}

/** The metrics; revenue in the platform's currency, the other currencies' sums said beside it. */
function metricsSection(ctx: PageContext, report: ProgressReport, currency: string): Html {
  const { t, f } = ctx;
  const o = report.overall;
  const cats = report.perCategory;
  const fig = t.dashboard.figure;
  const chart = t.dashboard.chart;
  return html`<section aria-labelledby="metrics">
<h2 id="metrics">${t.dashboard.metrics}</h2>
${figures([
  [fig.courses, f.number(o.totalCourses)],
  [fig.publishedClasses, f.number(o.totalClasses)],
  [fig.students, f.number(o.totalStudents)],
  [fig.enrollments, f.number(o.totalDaftar)],
  // The spec's completionRate is the learners' average progress, not the share who finished: said so, with that count beside it.
  [t.path.dashboard.averageProgress, f.percent(o.completionRate)],
  [t.path.dashboard.finished(o.totalSelesai), f.number(o.totalSelesai)],
  [fig.buyers30Days, f.number(o.buyers30Days)],
  [fig.revenue30Days, f.money(o.revenue30Days, currency)],
  [fig.kum30Days, f.number(o.totalKum30Days)],
  [fig.certificates, f.number(o.certificatesCount)],
  [fig.peopleWithCertificate, f.number(o.peopleWithBadgeCount)],
])}
${otherRevenue(ctx, o.revenueByCurrency30Days, currency)}
<h2 id="charts">${t.dashboard.byCategory}</h2>
<div class="charts">
${barChart({
  name: 'completion-rate',
  title: chart.completionRate,
  items: cats.map((c) => ({ label: c.categoryName, value: c.completionRate, text: f.percent(c.completionRate) })),
  empty: chart.noCategories,
  max: 100,
  color: '#1b7f3b',
})}
${barChart({
  name: 'buyers',
  title: chart.buyers,
  items: cats.map((c) => ({ label: c.categoryName, value: c.buyers30Days, text: f.number(c.buyers30Days) })),
  empty: chart.noCategories,
  color: '#1f5fa8',
})}
${barChart({
  name: 'revenue',
  title: chart.revenue,
  items: cats.map((c) => ({ label: c.categoryName, value: c.revenue30Days, text: f.money(c.revenue30Days, currency) })),
  empty: chart.noCategories,
  color: '#6a3fa0',
})}
${barChart({
  name: 'certificates',
  title: chart.certificates,
  items: cats.map((c) => ({ label: c.categoryName, value: c.certificatesCount, text: f.number(c.certificatesCount) })),
  empty: chart.noCategories,
  color: '#a04a12',
})}
</div>
</section>`;
}

async function staffBody(app: FastifyInstance, ctx: PageContext, session: PageSession, query?: unknown): Promise<Html> {
  const { t, f } = ctx;
  const col = t.dashboard.column;
  const { caller, user } = session;
  const viewer = { kind: 'session' as const, userId: caller.userId, role: caller.role };
  const [report, list] = await Promise.all([
    computeProgressMetrics(app.db, app.clock(), { currency: app.config.PLATFORM_CURRENCY }),
    findVisibleCourses(app.db, viewer, { page: 1, limit: STAFF_COURSE_LIMIT }),
  ]);
  const drafts = await findDraftCourseIds(
    app.db,
    list.courses.map((c) => Number(c.id)),
  );
  const own = caller.role === 'teacher';
  const rows = list.courses.map((c) => {
    const state = drafts.has(Number(c.id))
      ? html`<span class="badge draft">${t.dashboard.state.draft}</span>`
      : c.eventCode === null
        ? html`<span class="badge draft">${t.dashboard.state.publishedWithoutEventCode}</span>`
        : html`<span class="badge completed">${t.dashboard.state.inCatalog}</span>`;
    return html`<tr>
<td data-label="${col.course}"><a href="${href('/dashboard/courses', c.id)}">${c.name}</a></td>
<td data-label="${col.state}">${state} <a href="${href('/dashboard/studio/courses', c.id)}" class="studio-link">${t.studio.open}<span class="sr-only"> ${c.name}</span></a></td>
<td data-label="${col.category}">${c.category?.name ?? '—'}</td>
<td data-label="${col.students}" class="num">${f.number(c.studentCount)}</td>
<td data-label="${col.modules}" class="num">${f.number(c.moduleCount)}</td>
<td data-label="${col.kum}" class="num">${c.nilaiKum === null ? '—' : f.number(c.nilaiKum)}</td>
</tr>
`;
  });
  const courseTitle = own ? t.dashboard.yourCourses : t.dashboard.courses;
  const more =
    list.pagination.total > list.courses.length &&
    html`<p class="muted">${t.dashboard.showingNewest(list.courses.length, list.pagination.total)}</p>`;
  const courses =
    list.courses.length === 0
      ? html`<p class="muted">${own ? t.dashboard.noOwnCourses : t.dashboard.noCourses}</p>`
      : html`<div class="table-wrap"><table class="responsive">
<caption class="muted">${own ? t.dashboard.draftsIncluded : t.dashboard.everyCourseDraftsIncluded}</caption>
<thead><tr><th scope="col">${col.course}</th><th scope="col">${col.state}</th><th scope="col">${col.category}</th><th scope="col" class="num">${col.students}</th><th scope="col" class="num">${col.modules}</th><th scope="col" class="num">${col.kum}</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>${more}`;
  const keys =
    own &&
    html`<section aria-labelledby="keys"><h2 id="keys">${t.layout.apiKeys}</h2><div class="card"><p>${t.dashboard.apiKeysText}</p></div></section>`;
  return html`<h1>${t.dashboard.welcome(user.name)}</h1>
<p><a href="${href('/account/notifications')}">${t.notifications.title}</a></p>
${await staffLearningSections(app, ctx, session, query)}
${metricsSection(ctx, report, app.config.PLATFORM_CURRENCY)}
<section aria-labelledby="courses">
<h2 id="courses">${courseTitle}</h2>
<p><a href="${href('/dashboard/studio/new')}" class="button">${t.studio.newCourse}</a></p>
${courses}
</section>
${keys}
${
  session.caller.role === 'super_admin' &&
  html`<section aria-labelledby="webhooks"><h2 id="webhooks"><a href="/dashboard/webhooks">${webhooksWords(ctx).title}</a></h2></section>
<section aria-labelledby="schemes"><h2 id="schemes"><a href="/dashboard/schemes">${schemesWords(ctx).title}</a></h2></section>`
}`;
}

/** GET /dashboard: a learner's courses, or a teacher's and admin's metrics and courses. */
const dashboardPage: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/',
    pageOptions({ summary: "The signed-in user's dashboard; 302 to `/sign-in` without a valid session" }, { sessionLimited: true }),
    async (request, reply) => {
      const { session, ctx } = await signedIn(app, request);
      const staff = session.caller.role !== 'student';
      const body = staff ? await staffBody(app, ctx, session, request.query) : await learnerBody(app, ctx, session);
      return sendPage(reply, page(ctx, ctx.t.dashboard.title, body, { user: session.user, current: '/dashboard' }));
    },
  );
};

export default dashboardPage;
