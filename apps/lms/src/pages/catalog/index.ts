import { CourseListQuery, type PublicCourse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findVisibleCourses } from '../../domain/catalog/course-list.js';
import { courseTierPrice } from '../../domain/rules/tier-prices.js';
import { listCategories } from '../../domain/categories.js';
import type { PageContext } from '../i18n/index.js';
import { sendPage } from '../send.js';
import { coverImage, ignoredNote, pager, progressBar, statusBadge } from '../view/components.js';
import { ownPicturePath } from '../../domain/media/pictures.js';
import { attr, type Html, href, html, join } from '../view/html.js';
import { page } from '../view/layout.js';
import { pageOptions, signedIn } from '../page-route.js';

const PAGE_SIZE = 20;
/** The sort orders offered, by their `sortBy` value ('' is the API's default, newest first). */
const SORTS = [
  ['', 'newest'],
  ['name', 'name'],
  ['students', 'students'],
  ['modules', 'modules'],
] as const satisfies readonly (readonly [string, keyof PageContext['t']['catalog']['sort']])[];

const PARAMETERS = ['search', 'categoryId', 'sortBy', 'page'] as const;

/** The page's own parameters, loose: a bad value is dropped (with a note), not an error page. */
const PageQuery = z.object({
  search: z.string().optional(),
  categoryId: z.string().optional(),
  sortBy: z.string().optional(),
  page: z.string().optional(),
});

function courseCard(ctx: PageContext, c: PublicCourse, learner: boolean, publicUrl: string, tier: string | null): Html {
  const { t, f } = ctx;
  const facts = [
    c.category ? c.category.name : t.catalog.noCategory,
    t.catalog.instructor(c.instructor || '—'),
    t.common.modules(c.moduleCount),
    t.common.students(c.studentCount),
    c.nilaiKum === null ? null : t.common.kum(c.nilaiKum),
    c.isPurchasable ? f.money(courseTierPrice(c, tier), c.currency) : null,
  ].filter((fact): fact is string => fact !== null);
  const progress =
    learner &&
    c.status !== 'not-started' &&
    html`<p>${statusBadge(ctx, c.status)} ${progressBar(ctx, c.totalProgress, t.common.progressOf(c.name))}</p>`;
  const description = c.description.length > 220 ? `${c.description.slice(0, 219)}…` : c.description;
  return html`<li class="card"><article>
${coverImage(ownPicturePath(c.thumbnail, publicUrl), c.name)}
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
    pageOptions({ summary: 'The course catalog with search, category filter and sort', querystring: PageQuery }, { sessionLimited: true }),
    async (request, reply) => {
      const { session, ctx } = await signedIn(app, request);
      const { t } = ctx;
      const given = request.query;
      // Each parameter is checked by the API's own schema; one that does not pass is ignored.
      const query: CourseListQuery = { page: 1, limit: PAGE_SIZE };
      const ignored: (typeof PARAMETERS)[number][] = [];
      for (const name of PARAMETERS) {
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
        html`<option value="">${t.catalog.allCategories}</option>`,
        ...categories.map((c) => html`<option value="${c.id}"${attr('selected', query.categoryId === c.id)}>${c.name}</option>`),
        html`<option value="uncategorized"${attr('selected', query.categoryId === 'uncategorized')}>${t.catalog.noCategory}</option>`,
      ];
      const sortOptions = SORTS.map(
        ([value, label]) =>
          html`<option value="${value}"${attr('selected', (query.sortBy ?? '') === value)}>${t.catalog.sort[label]}</option>`,
      );
      const { pagination } = result;
      const link = (p: number) =>
        href('/dashboard/catalog').withQuery({
          search: query.search,
          categoryId: query.categoryId === undefined ? undefined : String(query.categoryId),
          sortBy: query.sortBy,
          page: p,
        });
      const list =
        result.courses.length === 0
          ? html`<p class="muted" role="status">${t.catalog.noMatch}</p>`
          : html`<p class="muted" role="status">${t.catalog.found(pagination.total)}</p>
<ul class="course-list" aria-label="${t.catalog.list}">${join(
              result.courses.map((c) => courseCard(ctx, c, learner, app.config.PUBLIC_URL, session.user.tier)),
              '\n',
            )}</ul>`;
      const note = ignoredNote(
        ctx,
        ignored.map((name) => t.catalog.field[name]),
      );
      const body = html`<h1>${t.catalog.title}</h1>
<form class="filters card" method="get" action="/dashboard/catalog" role="search">
<label>${t.catalog.search} <input type="search" name="search" value="${query.search ?? ''}" maxlength="200" placeholder="${t.catalog.searchPlaceholder}"></label>
<label>${t.catalog.category} <select name="categoryId">${categoryOptions}</select></label>
<label>${t.catalog.sortBy} <select name="sortBy">${sortOptions}</select></label>
<button type="submit">${t.catalog.show}</button>
</form>
${note}
${list}
${pager(ctx, pagination, link)}`;
      return sendPage(reply, page(ctx, t.catalog.title, body, { user: session.user, current: '/dashboard/catalog' }));
    },
  );
};

export default catalogPage;
