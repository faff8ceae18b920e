import { CourseIdParams, HtmlPage, MAX_ID, RedirectResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { findVisibleCourses } from '../domain/catalog/course-list.js';
import { NotFoundError } from '../errors.js';
import { escapeHtml, formatDay, formatMoney, formatNumber, page, plural, progressBar, sendPage, STATUS_LABELS } from './html.js';
import { pageSession } from './session.js';

function lock(unlocked: boolean): string {
  return unlocked ? '<span class="badge unlocked">Unlocked</span>' : '<span class="badge locked">Locked</span>';
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

      const modules = course.modules
        .map((m) => {
          const chapters = m.chapters
            .map(
              (c) =>
                `<li>${escapeHtml(c.title)} ${lock(c.isUnlocked)}${c.completionPercentage >= 100 ? ' <span class="badge completed">Done</span>' : ''}${
                  c.quiz ? ` <span class="muted">· Quiz: ${escapeHtml(c.quiz.title)} (${plural(c.quiz.questionCount, 'question')})</span>` : ''
                }</li>`,
            )
            .join('\n');
          return `<li><section aria-labelledby="module-${escapeHtml(m.id)}">
<h3 id="module-${escapeHtml(m.id)}">${escapeHtml(m.title)} ${lock(m.isUnlocked)}</h3>
${m.description ? `<p class="muted">${escapeHtml(m.description)}</p>` : ''}
<p>${plural(m.chapterCount, 'chapter')}${learner ? ` · ${progressBar(m.completionPercentage, `${m.title} progress`)}` : ''}</p>
${chapters ? `<ol class="chapters">${chapters}</ol>` : '<p class="muted">No chapters yet.</p>'}
${m.moduleQuiz ? `<p class="muted">Module quiz: ${escapeHtml(m.moduleQuiz.title)} (${plural(m.moduleQuiz.questionCount, 'question')})</p>` : ''}
</section></li>`;
        })
        .join('\n');
      const progress = learner
        ? `<dt>Your status</dt><dd><span class="badge ${escapeHtml(course.status)}">${escapeHtml(STATUS_LABELS[course.status] ?? course.status)}</span></dd>
<dt>Your progress</dt><dd>${progressBar(course.totalProgress, 'Course progress')}</dd>
<dt>Certificate</dt><dd>${course.certificate.isGenerated ? 'Issued' : course.certificate.isEligible ? 'Eligible' : 'Not yet'}</dd>`
        : '';
      const exam = course.finalExam.id
        ? `<p>Final exam: ${escapeHtml(course.finalExam.title)} · ${plural(course.finalExam.questions.length, 'question')} · pass mark ${formatNumber(course.finalExam.minimumScore)}</p>`
        : '';
      const body = `<p><a href="/dashboard/catalog">← Catalog</a></p>
<h1>${escapeHtml(course.name)}</h1>
<div class="card">
${course.description ? `<p>${escapeHtml(course.description)}</p>` : ''}
<dl>
<dt>Category</dt><dd>${escapeHtml(course.category?.name ?? 'None')}</dd>
<dt>Instructor</dt><dd>${escapeHtml(course.instructor || '—')}</dd>
<dt>Course code</dt><dd>${escapeHtml(course.code || '—')}</dd>
<dt>Dates</dt><dd>${escapeHtml(formatDay(course.startDate))} to ${escapeHtml(formatDay(course.endDate))}</dd>
<dt>KUM points</dt><dd>${course.nilaiKum === null ? '—' : formatNumber(course.nilaiKum)}</dd>
<dt>Price</dt><dd>${course.isPurchasable ? escapeHtml(formatMoney(course.price, course.currency)) : 'Not for sale'}</dd>
<dt>Students</dt><dd>${formatNumber(course.studentCount)}</dd>
${progress}
</dl>
</div>
<section aria-labelledby="modules">
<h2 id="modules">Modules</h2>
${course.modules.length ? `<ol class="modules">${modules}</ol>` : '<p class="muted">No modules yet.</p>'}
${exam}
</section>`;
      return sendPage(reply, page(course.name, body, { user: session.user, current: '/dashboard/catalog' }));
    },
  );
};

export default coursePage;
