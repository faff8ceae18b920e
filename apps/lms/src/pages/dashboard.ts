import { HtmlPage, type PublicCourse, RedirectResponse } from '@lms/contracts';
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { findDraftCourseIds, findLearnerOverview } from '../domain/dashboard.js';
import { findVisibleCourses } from '../domain/catalog/course-list.js';
import { computeProgressMetrics, type ProgressReport } from '../domain/progress.js';
import { sendPage } from './send.js';
import { type PageSession, pageSession } from './session.js';
import { barChart } from './view/charts.js';
import { progressBar, statusBadge } from './view/components.js';
import { formatMoney, formatNumber, TIER_LABELS } from './view/format.js';
import { type Html, href, html } from './view/html.js';
import { page } from './view/layout.js';

const STAFF_COURSE_LIMIT = 50;

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

function certificateText(course: PublicCourse): string {
  if (course.certificate.isGenerated) return 'Issued';
  if (course.certificate.isEligible) return 'Eligible';
  return '—';
}

async function learnerBody(app: FastifyInstance, session: PageSession): Promise<Html> {
  const { user } = session;
  const overview = await findLearnerOverview(app.db, session.caller.userId);
  const rows = overview.courses.map((c) => {
    const { done, total } = chapterTotals(c);
    return html`<tr>
<td data-label="Course"><a href="${href('/dashboard/courses', c.id)}">${c.name}</a></td>
<td data-label="Status">${statusBadge(c.status)}</td>
<td data-label="Progress">${progressBar(c.totalProgress, `${c.name} progress`)}</td>
<td data-label="Chapters done" class="num">${done} / ${total}</td>
<td data-label="KUM" class="num">${c.nilaiKum === null ? '—' : formatNumber(c.nilaiKum)}</td>
<td data-label="Certificate">${certificateText(c)}</td>
</tr>
`;
  });
  const courseList =
    overview.courses.length === 0
      ? html`<p class="muted">You are not enrolled in any course yet. <a href="/dashboard/catalog">Browse the catalog</a>.</p>`
      : html`<div class="table-wrap"><table class="responsive">
<caption class="sr-only">Your courses</caption>
<thead><tr><th scope="col">Course</th><th scope="col">Status</th><th scope="col">Progress</th><th scope="col" class="num">Chapters done</th><th scope="col" class="num">KUM</th><th scope="col">Certificate</th></tr></thead>
<tbody>
${rows}</tbody>
</table></div>`;
  return html`<h1>Welcome, ${user.name}</h1>
<section aria-labelledby="summary">
<h2 id="summary">At a glance</h2>
${figures([
  ['Courses enrolled', formatNumber(overview.courses.length)],
  ['Completed', formatNumber(overview.completed)],
  ['Certificates', formatNumber(overview.certificates)],
  ['KUM points earned', formatNumber(overview.kumEarned)],
])}
</section>
<section aria-labelledby="courses">
<h2 id="courses">Your courses</h2>
${courseList}
</section>
<section aria-labelledby="profile">
<h2 id="profile">Your account</h2>
<div class="card"><dl>
<dt>Name</dt><dd>${user.name}</dd>
<dt>E-mail</dt><dd>${user.email}</dd>
<dt>Tier</dt><dd>${user.tier ? (TIER_LABELS[user.tier] ?? user.tier) : 'none'}</dd>
<dt>Membership ID</dt><dd>${user.membershipId ?? 'none'}</dd>
</dl></div>
</section>`;
}

function metricsSection(report: ProgressReport): Html {
  const o = report.overall;
  const cats = report.perCategory;
  return html`<section aria-labelledby="metrics">
<h2 id="metrics">Platform metrics</h2>
${figures([
  ['Courses', formatNumber(o.totalCourses)],
  ['Published classes', formatNumber(o.totalClasses)],
  ['Students', formatNumber(o.totalStudents)],
  ['Enrollments', formatNumber(o.totalDaftar)],
  ['Completion rate', `${formatNumber(o.completionRate)}%`],
  ['Buyers, last 30 days', formatNumber(o.buyers30Days)],
  ['Revenue, last 30 days', formatMoney(o.revenue30Days)],
  ['KUM issued, last 30 days', formatNumber(o.totalKum30Days)],
  ['Certificates', formatNumber(o.certificatesCount)],
  ['People with a certificate', formatNumber(o.peopleWithBadgeCount)],
])}
<h2 id="charts">By category</h2>
<div class="charts">
${barChart(
  'Completion rate per category',
  cats.map((c) => ({ label: c.categoryName, value: c.completionRate, text: `${formatNumber(c.completionRate)}%` })),
  { max: 100, color: '#1b7f3b' },
)}
${barChart(
  'Buyers in the last 30 days',
  cats.map((c) => ({ label: c.categoryName, value: c.buyers30Days, text: formatNumber(c.buyers30Days) })),
  { color: '#1f5fa8' },
)}
${barChart(
  'Revenue in the last 30 days',
  cats.map((c) => ({ label: c.categoryName, value: c.revenue30Days, text: formatMoney(c.revenue30Days) })),
  { color: '#6a3fa0' },
)}
${barChart(
  'Certificates issued',
  cats.map((c) => ({ label: c.categoryName, value: c.certificatesCount, text: formatNumber(c.certificatesCount) })),
  { color: '#a04a12' },
)}
</div>
</section>`;
}

async function staffBody(app: FastifyInstance, session: PageSession): Promise<Html> {
  const { caller, user } = session;
  const viewer = { kind: 'session' as const, userId: caller.userId, role: caller.role };
  const [report, list] = await Promise.all([
    computeProgressMetrics(app.db, app.clock()),
    findVisibleCourses(app.db, viewer, { page: 1, limit: STAFF_COURSE_LIMIT }),
  ]);
  const drafts = await findDraftCourseIds(app.db, list.courses.map((c) => Number(c.id)));
  const own = caller.role === 'teacher';
  const rows = list.courses.map((c) => {
    const state = drafts.has(Number(c.id))
      ? html`<span class="badge draft">Draft</span>`
      : c.eventCode === null
        ? html`<span class="badge draft">Published, no event code</span>`
        : html`<span class="badge completed">In the catalog</span>`;
    return html`<tr>
<td data-label="Course"><a href="${href('/dashboard/courses', c.id)}">${c.name}</a></td>
<td data-label="State">${state}</td>
<td data-label="Category">${c.category?.name ?? '—'}</td>
<td data-label="Students" class="num">${formatNumber(c.studentCount)}</td>
<td data-label="Modules" class="num">${formatNumber(c.moduleCount)}</td>
<td data-label="KUM" class="num">${c.nilaiKum === null ? '—' : formatNumber(c.nilaiKum)}</td>
</tr>
`;
  });
  const courseTitle = own ? 'Your courses' : 'Courses';
  const more =
    list.pagination.total > list.courses.length &&
    html`<p class="muted">Showing the ${list.courses.length} newest of ${formatNumber(list.pagination.total)}. <a href="/dashboard/catalog">See them all in the catalog</a>.</p>`;
  const courses =
    list.courses.length === 0
      ? html`<p class="muted">${own ? 'You have no courses yet.' : 'There are no courses yet.'}</p>`
      : html`<div class="table-wrap"><table class="responsive">
<caption class="muted">${own ? 'Drafts included' : 'Every course, drafts included'}</caption>
<thead><tr><th scope="col">Course</th><th scope="col">State</th><th scope="col">Category</th><th scope="col" class="num">Students</th><th scope="col" class="num">Modules</th><th scope="col" class="num">KUM</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>${more}`;
  const keys =
    own &&
    html`<section aria-labelledby="keys"><h2 id="keys">Kunci API</h2><div class="card"><p>Connect your own systems to the catalog with an API key. <a href="/dashboard/api-keys">Manage your API keys</a>.</p></div></section>`;
  return html`<h1>Welcome, ${user.name}</h1>
${metricsSection(report)}
<section aria-labelledby="courses">
<h2 id="courses">${courseTitle}</h2>
${courses}
</section>
${keys}`;
}

/** GET /dashboard: a learner's courses, or a teacher's and admin's metrics and courses. */
const dashboardPage: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/',
    {
      config: { auth: true },
      schema: {
        hide: true,
        tags: ['pages'],
        summary: 'The signed-in user\'s dashboard; 302 to `/sign-in` without a valid session',
        response: { 200: HtmlPage, 302: RedirectResponse },
      },
    },
    async (request, reply) => {
      const session = await pageSession(app, request);
      const staff = session.caller.role !== 'student';
      const body = staff ? await staffBody(app, session) : await learnerBody(app, session);
      return sendPage(reply, page('Dashboard', body, { user: session.user, current: '/dashboard' }));
    },
  );
};

export default dashboardPage;
