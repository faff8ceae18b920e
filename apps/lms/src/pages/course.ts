import { CourseIdParams, HtmlPage, MAX_ID, RedirectResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { findVisibleCourses } from '../domain/catalog/course-list.js';
import { NotFoundError } from '../errors.js';
import { sendPage } from './send.js';
import { pageSession } from './session.js';
import { progressBar, statusBadge } from './view/components.js';
import { formatDay, formatMoney, formatNumber, plural } from './view/format.js';
import { html } from './view/html.js';
import { page } from './view/layout.js';

function lock(unlocked: boolean) {
  return unlocked ? html`<span class="badge unlocked">Unlocked</span>` : html`<span class="badge locked">Locked</span>`;
}

/**
 * GET /dashboard/courses/:id: one course as the catalog shows it to this person (modules and
 * chapters with the learner's unlock state). It is built from the catalog summary, which has no
 * answer-key field at all, so no answer key can reach the page, whoever looks.
 */
const coursePage: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/courses/:id',
    {
      config: { auth: true },
      schema: {
        hide: true,
        tags: ['pages'],
        summary: 'One course with its modules and chapters, locked or unlocked',
        params: CourseIdParams,
        response: { 200: HtmlPage, 302: RedirectResponse },
      },
    },
    async (request, reply) => {
      const session = await pageSession(app, request);
      const viewer = { kind: 'session' as const, userId: session.caller.userId, role: session.caller.role };
      const id = request.params.id;
      if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID) throw new NotFoundError('Course not found');
      const found = await findVisibleCourses(app.db, viewer, { courseId: id });
      const course = found.courses[0];
      if (!course) throw new NotFoundError('Course not found');
      const learner = session.caller.role === 'student';

      const modules = course.modules.map((m) => {
        const chapters = m.chapters.map(
          (c) =>
            html`<li>${c.title} ${lock(c.isUnlocked)}${c.completionPercentage >= 100 && html` <span class="badge completed">Done</span>`}${
              c.quiz && html` <span class="muted">· Quiz: ${c.quiz.title} (${plural(c.quiz.questionCount, 'question')})</span>`
            }</li>
`,
        );
        return html`<li><section aria-labelledby="module-${m.id}">
<h3 id="module-${m.id}">${m.title} ${lock(m.isUnlocked)}</h3>
${m.description && html`<p class="muted">${m.description}</p>`}
<p>${plural(m.chapterCount, 'chapter')}${learner && html` · ${progressBar(m.completionPercentage, `${m.title} progress`)}`}</p>
${chapters.length > 0 ? html`<ol class="chapters">${chapters}</ol>` : html`<p class="muted">No chapters yet.</p>`}
${m.moduleQuiz && html`<p class="muted">Module quiz: ${m.moduleQuiz.title} (${plural(m.moduleQuiz.questionCount, 'question')})</p>`}
</section></li>
`;
      });
      const progress =
        learner &&
        html`<dt>Your status</dt><dd>${statusBadge(course.status)}</dd>
<dt>Your progress</dt><dd>${progressBar(course.totalProgress, 'Course progress')}</dd>
<dt>Certificate</dt><dd>${course.certificate.isGenerated ? 'Issued' : course.certificate.isEligible ? 'Eligible' : 'Not yet'}</dd>`;
      const exam =
        course.finalExam.id !== '' &&
        html`<p>Final exam: ${course.finalExam.title} · ${plural(course.finalExam.questions.length, 'question')} · pass mark ${formatNumber(course.finalExam.minimumScore)}</p>`;
      const body = html`<p><a href="/dashboard/catalog">← Catalog</a></p>
<h1>${course.name}</h1>
<div class="card">
${course.description && html`<p>${course.description}</p>`}
<dl>
<dt>Category</dt><dd>${course.category?.name ?? 'None'}</dd>
<dt>Instructor</dt><dd>${course.instructor || '—'}</dd>
<dt>Course code</dt><dd>${course.code || '—'}</dd>
<dt>Dates</dt><dd>${formatDay(course.startDate)} to ${formatDay(course.endDate)}</dd>
<dt>KUM points</dt><dd>${course.nilaiKum === null ? '—' : formatNumber(course.nilaiKum)}</dd>
<dt>Price</dt><dd>${course.isPurchasable ? formatMoney(course.price, course.currency) : 'Not for sale'}</dd>
<dt>Students</dt><dd>${formatNumber(course.studentCount)}</dd>
${progress}
</dl>
</div>
<section aria-labelledby="modules">
<h2 id="modules">Modules</h2>
${course.modules.length > 0 ? html`<ol class="modules">${modules}</ol>` : html`<p class="muted">No modules yet.</p>`}
${exam}
</section>`;
      return sendPage(reply, page(course.name, body, { user: session.user, current: '/dashboard/catalog' }));
    },
  );
};

export default coursePage;
