import { CourseListQuery, HtmlPage, type PublicCourse, RedirectResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findVisibleCourses } from '../domain/catalog/course-list.js';
import { listCategories } from '../domain/dashboard.js';
import { sendPage } from './send.js';
import { pageSession } from './session.js';
import { progressBar, statusBadge } from './view/components.js';
import { formatMoney, formatNumber, plural } from './view/format.js';
import { attr, type Html, href, html, join } from './view/html.js';
import { page } from './view/layout.js';

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

function courseCard(c: PublicCourse, learner: boolean): Html {
  const facts = [
    c.category ? c.category.name : 'No category',
    `Instructor: ${c.instructor || '—'}`,
    plural(c.moduleCount, 'module'),
    plural(c.studentCount, 'student'),
    c.nilaiKum === null ? null : `${formatNumber(c.nilaiKum)} KUM`,
    c.isPurchasable ? formatMoney(c.price, c.currency) : null,
  ].filter((f): f is string => f !== null);
  const progress =
    learner && c.status !== 'not-started' && html`<p>${statusBadge(c.status)} ${progressBar(c.totalProgress, `${c.name} progress`)}</p>`;
  const description = c.description.length > 220 ? `${c.description.slice(0, 219)}…` : c.description;
  return html`<li class="card"><article>
<h3><a href="${href('/dashboard/courses', c.id)}">${c.name}</a></h3>
<p class="muted">${join(facts, ' · ')}</p>
${description && html`<p>${description}</p>`}
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
      const given = request.query;
      // Each parameter is checked by the API's own schema; one that does not pass is ignored.
      const query: CourseListQuery = { page: 1, limit: PAGE_SIZE };
      const ignored: string[] = [];
      for (const name of ['search', 'categoryId', 'sortBy', 'page'] as const) {
        const value = given[name];
        if (value === undefined || value === '') continue;
        const parsed = CourseListQuery.safeParse({ [name]: value });
        if (parsed.success) Object.assign(query, { [name]: parsed.data[name] });
        else ignored.push(name);
      }
      const viewer = { kind: 'session' as const, userId: session.caller.userId, role: session.caller.role };
      const [result, categories] = await Promise.all([findVisibleCourses(app.db, viewer, query), listCategories(app.db)]);
      const learner = session.caller.role === 'student';

      const categoryOptions = [
        html`<option value="">All categories</option>`,
        ...categories.map((c) => html`<option value="${c.id}"${attr('selected', query.categoryId === c.id)}>${c.name}</option>`),
        html`<option value="uncategorized"${attr('selected', query.categoryId === 'uncategorized')}>No category</option>`,
      ];
      const sortOptions = SORTS.map(
        ([value, label]) => html`<option value="${value}"${attr('selected', (query.sortBy ?? '') === value)}>${label}</option>`,
      );
      const { pagination } = result;
      const link = (p: number) =>
        href('/dashboard/catalog').withQuery({
          search: query.search,
          categoryId: query.categoryId === undefined ? undefined : String(query.categoryId),
          sortBy: query.sortBy,
          page: p,
        });
      const pager =
        pagination.totalPages > 1 &&
        html`<nav class="pager" aria-label="Pages">${
          pagination.page > 1 && html`<a href="${link(pagination.page - 1)}" rel="prev">Previous</a>`
        }<span>Page ${pagination.page} of ${pagination.totalPages}</span>${
          pagination.page < pagination.totalPages && html`<a href="${link(pagination.page + 1)}" rel="next">Next</a>`
        }</nav>`;
      const list =
        result.courses.length === 0
          ? html`<p class="muted" role="status">No course matches.</p>`
          : html`<p class="muted" role="status">${plural(pagination.total, 'course')} found.</p>
<ul class="course-list" aria-label="Courses">${join(
              result.courses.map((c) => courseCard(c, learner)),
              '\n',
            )}</ul>`;
      const note = ignored.length > 0 && html`<p class="warning" role="alert">Ignored an invalid value for: ${ignored.join(', ')}.</p>`;
      const body = html`<h1>Catalog</h1>
<form class="filters card" method="get" action="/dashboard/catalog" role="search">
<label>Search <input type="search" name="search" value="${query.search ?? ''}" maxlength="200" placeholder="Name, instructor, code…"></label>
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
