import { CourseListQuery, HtmlPage, type PublicCourse, RedirectResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findVisibleCourses } from '../domain/catalog/course-list.js';
import { listCategories } from '../domain/dashboard.js';
import { escapeHtml, formatMoney, formatNumber, page, plural, progressBar, sendPage, STATUS_LABELS } from './html.js';
import { pageSession } from './session.js';

const PAGE_SIZE = 20;
const SORTS: [string, string][] = [
  ['', 'Newest first'],
  ['name', 'Name (A to Z)'],
  ['students', 'Most students'],
  ['modules', 'Most modules'],
];

/** The page's own parameters, loose: a bad value is dropped (with a note), not an error page. */
const PageQuery = z.object({
  search: z.string().optional(),
  categoryId: z.string().optional(),
  sortBy: z.string().optional(),
  page: z.string().optional(),
});

function courseCard(c: PublicCourse, learner: boolean): string {
  const facts = [
    c.category ? escapeHtml(c.category.name) : 'No category',
    `Instructor: ${escapeHtml(c.instructor || '—')}`,
    plural(c.moduleCount, 'module'),
    plural(c.studentCount, 'student'),
    c.nilaiKum === null ? null : `${formatNumber(c.nilaiKum)} KUM`,
    c.isPurchasable ? formatMoney(c.price, c.currency) : null,
  ].filter((f): f is string => f !== null);
  const progress = learner && c.status !== 'not-started'
    ? `<p><span class="badge ${escapeHtml(c.status)}">${escapeHtml(STATUS_LABELS[c.status] ?? c.status)}</span> ${progressBar(c.totalProgress, `${c.name} progress`)}</p>`
    : '';
  const description = c.description.length > 220 ? `${c.description.slice(0, 219)}…` : c.description;
  return `<li class="card"><article>
<h3><a href="/dashboard/courses/${escapeHtml(c.id)}">${escapeHtml(c.name)}</a></h3>
<p class="muted">${facts.join(' · ')}</p>
${description ? `<p>${escapeHtml(description)}</p>` : ''}
${progress}
</article></li>`;
}

/** GET /dashboard/catalog: the catalog the signed-in person may see, searchable, filtered and sorted. */
const catalogPage: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/catalog',
    {
      config: { auth: true },
      schema: {
        hide: true,
        tags: ['pages'],
        summary: 'The course catalog with search, category filter and sort',
        querystring: PageQuery,
        response: { 200: HtmlPage, 302: RedirectResponse },
      },
    },
    async (request, reply) => {
      const session = await pageSession(app, request);
      const raw = request.query;
      // Each parameter is checked by the API's own schema; one that does not pass is ignored.
      const query: CourseListQuery = { page: 1, limit: PAGE_SIZE };
      const ignored: string[] = [];
      for (const name of ['search', 'categoryId', 'sortBy', 'page'] as const) {
        const value = raw[name];
        if (value === undefined || value === '') continue;
        const parsed = CourseListQuery.safeParse({ [name]: value });
        if (parsed.success) Object.assign(query, { [name]: parsed.data[name] });
        else ignored.push(name);
      }
      const viewer = { kind: 'session' as const, userId: session.caller.userId, role: session.caller.role };
      const [result, categories] = await Promise.all([findVisibleCourses(app.db, viewer, query), listCategories(app.db)]);
      const learner = session.caller.role === 'student';

      const categoryOptions = [
        `<option value="">All categories</option>`,
        ...categories.map(
          (c) => `<option value="${c.id}"${query.categoryId === c.id ? ' selected' : ''}>${escapeHtml(c.name)}</option>`,
        ),
        `<option value="uncategorized"${query.categoryId === 'uncategorized' ? ' selected' : ''}>No category</option>`,
      ].join('');
      const sortOptions = SORTS.map(
        ([value, label]) => `<option value="${value}"${(query.sortBy ?? '') === value ? ' selected' : ''}>${label}</option>`,
      ).join('');
      const { pagination } = result;
      const link = (p: number) => {
        const params = new URLSearchParams();
        if (query.search) params.set('search', query.search);
        if (query.categoryId !== undefined) params.set('categoryId', String(query.categoryId));
        if (query.sortBy) params.set('sortBy', query.sortBy);
        params.set('page', String(p));
        return `/dashboard/catalog?${params}`;
      };
      const pager =
        pagination.totalPages > 1
          ? `<nav class="pager" aria-label="Pages">${
              pagination.page > 1 ? `<a href="${escapeHtml(link(pagination.page - 1))}" rel="prev">Previous</a>` : ''
            }<span>Page ${pagination.page} of ${pagination.totalPages}</span>${
              pagination.page < pagination.totalPages ? `<a href="${escapeHtml(link(pagination.page + 1))}" rel="next">Next</a>` : ''
            }</nav>`
          : '';
      const list =
        result.courses.length === 0
          ? '<p class="muted" role="status">No course matches.</p>'
          : `<p class="muted" role="status">${plural(pagination.total, 'course')} found.</p>
<ul class="course-list" aria-label="Courses">${result.courses.map((c) => courseCard(c, learner)).join('\n')}</ul>`;
      const note = ignored.length
        ? `<p class="warning" role="alert">Ignored an invalid value for: ${ignored.map(escapeHtml).join(', ')}.</p>`
        : '';
      const body = `<h1>Catalog</h1>
<form class="filters card" method="get" action="/dashboard/catalog" role="search">
<label>Search <input type="search" name="search" value="${escapeHtml(query.search ?? '')}" maxlength="200" placeholder="Name, instructor, code…"></label>
<label>Category <select name="categoryId">${categoryOptions}</select></label>
<label>Sort by <select name="sortBy">${sortOptions}</select></label>
<button type="submit">Show courses</button>
</form>
${note}
${list}
${pager}`;
      return sendPage(reply, page('Catalog', body, { user: session.user, current: '/dashboard/catalog' }));
    },
  );
};

export default catalogPage;
