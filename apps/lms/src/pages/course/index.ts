import { CourseIdParams, MAX_ID } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { findVisibleCourses } from '../../domain/catalog/course-list.js';
import { courseTierPrice } from '../../domain/rules/tier-prices.js';
import { NotFoundError } from '../../errors.js';
import type { PageContext } from '../i18n/index.js';
import { sendPage } from '../send.js';
import { amount, coverImage, progressBar, statusBadge } from '../view/components.js';
import { ownPicturePath } from '../../domain/media/pictures.js';
import { type Html, href, html } from '../view/html.js';
import { page } from '../view/layout.js';
import { bundlesSection } from '../learning/bundles-section.js';
import { enrolSection } from '../learning/enrol-section.js';
import { evaluationSummaryLink, evidenceSection } from '../learning/evidence-section.js';
import { assertManages } from '../../domain/learning/attempt-grants.js';
import { type AccreditationShown, accreditationsInForce } from '../../domain/evidence/accreditations.js';
import { findStep, loadCoursePath, pathRoleOf } from '../../domain/learning/course-path.js';
import { blockingStep, continueBox, outline, stepHref } from '../learning/outline.js';
import { courseContactLine } from '../learning/contact.js';
import { htmlPageSchema, pageOptions, signedIn } from '../page-route.js';

function lock(ctx: PageContext, unlocked: boolean) {
  return unlocked
    ? html`<span class="badge unlocked">${ctx.t.course.unlocked}</span>`
    : html`<span class="badge locked">${ctx.t.course.locked}</span>`;
}

/**
 * GET /dashboard/courses/:id: one course as the catalog shows it to this person (modules and
 * chapters with the learner's unlock state). It is built from the catalog summary, which has no
 * answer-key field at all, so no answer key can reach the page, whoever looks.
 */
/**
 * The credit a certificate of the course earns now: each accreditation in force, "2 JPL · SKP
 * Kemenkes (Kementerian Kesehatan RI), No. KEMKES/2026/77, until 31 Dec 2027"; none: not accredited.
 */
function creditShown(ctx: PageContext, list: AccreditationShown[]): Html | string {
  if (list.length === 0) return ctx.t.course.notAccredited;
  return html`${list.map(
    (a, i) =>
      html`${i > 0 && html`<br>`}<strong>${ctx.f.number(a.value)} ${a.unit}</strong> · ${ctx.t.course.accreditedBy(a.scheme, a.body, a.reference, a.validUntil && ctx.f.day(a.validUntil))}`,
  )}`;
}

const coursePage: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/courses/:id',
    pageOptions({ summary: 'One course with its modules and chapters, locked or unlocked', params: CourseIdParams }),
    async (request, reply) => {
      const { session, ctx } = await signedIn(app, request);
      const { t, f } = ctx;
      const viewer = { kind: 'session' as const, userId: session.caller.userId, role: session.caller.role };
      const id = request.params.id;
      if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID) throw new NotFoundError('Course not found');
      // A course the catalog no longer shows (unpublished) keeps its page for those enrolled in it,
      // with a notice (docs/architecture.md, "A course unpublished under its learners").
      let course = (await findVisibleCourses(app.db, viewer, { courseId: id })).courses[0];
      const noLongerOffered = !course;
      course ??= (await findVisibleCourses(app.db, viewer, { courseId: id }, { enrolledToo: true })).courses[0];
      if (!course) throw new NotFoundError('Course not found');
      const learner = session.caller.role === 'student';
      // Enrolled: the learner's own path (links to what is open, the reason for what is locked);
      // managing it: every part readable, no enrol form; anyone else: the outline as text.
      const { role } = await pathRoleOf(app.db, session.caller, id);
      const path =
        role === 'none' ? null : await loadCoursePath(app.db, session.caller.userId, id, role === 'learner' ? 'learner' : 'preview');
      const part = (kind: 'chapter' | 'quiz', partId: string, label: string) => {
        const step = path && findStep(path, kind, Number(partId));
        if (step && (role === 'manager' || step.state !== 'locked')) return html`<a href="${stepHref(step)}">${label}</a>`;
        return html`${label}`;
      };
      /** What opens a part locked for this learner, said after it (nothing for managers and non-learners). */
      const reason = (kind: 'chapter' | 'quiz', partId: string) => {
        const step = role === 'learner' && path && findStep(path, kind, Number(partId));
        return step && step.state === 'locked' && html` <span class="step-locked reason">${t.path.waitsFor(path.waitingFor)}</span>`;
      };

      const modules = course.modules.map((m) => {
        const chapters = m.chapters.map(
          (c) =>
            html`<li>${part('chapter', c.id, c.title)} ${lock(ctx, c.isUnlocked)}${c.completionPercentage >= 100 && html` <span class="badge completed">${t.course.done}</span>`}${reason('chapter', c.id)}${
              c.quiz &&
              html` <span class="muted">· ${part('quiz', c.quiz.id, t.course.chapterQuiz(c.quiz.title, c.quiz.questionCount))}</span>${reason('quiz', c.quiz.id)}`
            }</li>
`,
        );
        return html`<li><section aria-labelledby="module-${m.id}">
<h3 id="module-${m.id}">${m.title} ${lock(ctx, m.isUnlocked)}</h3>
${m.description && html`<p class="muted">${m.description}</p>`}
<p>${t.common.chapters(m.chapterCount)}${learner && html` · ${progressBar(ctx, m.completionPercentage, t.common.progressOf(m.title))}`}</p>
${chapters.length > 0 ? html`<ol class="chapters">${chapters}</ol>` : html`<p class="muted">${t.course.noChapters}</p>`}
${m.moduleQuiz && html`<p class="muted">${part('quiz', m.moduleQuiz.id, t.course.moduleQuiz(m.moduleQuiz.title, m.moduleQuiz.questionCount))}${reason('quiz', m.moduleQuiz.id)}</p>`}
</section></li>
`;
      });
      const progress =
        learner &&
        html`<dt>${t.course.yourStatus}</dt><dd>${statusBadge(ctx, course.status)}</dd>
<dt>${t.course.yourProgress}</dt><dd>${progressBar(ctx, course.totalProgress, t.course.courseProgress)}</dd>
<dt>${t.course.certificate}</dt><dd>${
          course.certificate.isGenerated
            ? html`<a href="${href('/learn/certificates', course.id)}">${t.certificate.issued}</a>`
            : course.certificate.isEligible
              ? t.certificate.eligible
              : t.certificate.notYet
        }</dd>`;
      const exam =
        course.finalExam.id !== '' &&
        html`<p>${part('quiz', course.finalExam.id, t.course.finalExam(course.finalExam.title, course.finalExam.questionCount, course.finalExam.minimumScore))}${reason('quiz', course.finalExam.id)}</p>`;
      const manager =
        role === 'manager' &&
        html`<section class="notice" aria-label="${t.path.manager.learners}"><p>${t.path.manager.banner}</p>
<p><a href="${href('/dashboard/courses', id, 'preview')}">${t.path.manager.preview}</a> · <a href="${href('/dashboard/courses', id, 'learners')}">${t.path.manager.learners}</a></p></section>`;
      const [enrol, inBundles, evidence, accreditations] = await Promise.all([
        role === 'manager' ? html`` : enrolSection(app, ctx, session.caller.userId, course, request.query),
        bundlesSection(app.db, ctx, session.caller.userId, id),
        // What the certificate still waits for (credit evidence), once the learner has finished the rest.
        role === 'learner' && !course.certificate.isGenerated
          ? evidenceSection(app.db, ctx, session.caller.userId, id, app.clock())
          : html``,
        accreditationsInForce(app.db, id, app.clock()),
      ]);
      const body = html`<p><a href="/dashboard/catalog">${t.course.backToCatalog}</a></p>
<h1>${course.name}</h1>
${noLongerOffered && html`<p class="notice" role="status">${t.course.noLongerOffered}</p>`}
${coverImage(ownPicturePath(course.thumbnail, app.config.PUBLIC_URL), course.name)}
<div class="card">
${course.description && html`<p>${course.description}</p>`}
<dl>
<dt>${t.course.category}</dt><dd>${course.category?.name ?? t.common.none}</dd>
<dt>${t.course.instructor}</dt><dd>${course.instructor || '—'}</dd>
<dt>${t.course.code}</dt><dd>${course.code || '—'}</dd>
${course.enrollmentCode && html`<dt>${t.course.enrolmentCode}</dt><dd><code>${course.enrollmentCode}</code></dd>`}
<dt>${t.course.dates}</dt><dd>${t.course.courseDates(course.startDate, course.endDate)}</dd>
<dt>${t.course.credit}</dt><dd>${creditShown(ctx, accreditations)}</dd>
<dt>${t.course.price}</dt><dd>${course.isPurchasable ? amount(f.money(courseTierPrice(course, session.user.tier), course.currency)) : t.course.notForSale}</dd>
<dt>${t.course.students}</dt><dd>${f.number(course.studentCount)}</dd>
${progress}
</dl>
</div>
${manager}
${role === 'manager' && evaluationSummaryLink(ctx, id)}
${evidence}
${role === 'learner' && path && continueBox(ctx, path, blockingStep(path) !== undefined && (await courseContactLine(app, ctx, id, 'grant')))}
${enrol}
${inBundles}
<section aria-labelledby="modules">
<h2 id="modules">${t.course.modules}</h2>
${course.modules.length > 0 ? html`<ol class="modules">${modules}</ol>` : html`<p class="muted">${t.course.noModules}</p>`}
${exam}
</section>`;
      const current = role === 'learner' ? '/dashboard' : '/dashboard/catalog';
      return sendPage(reply, page(ctx, course.name, body, { user: session.user, current }));
    },
  );

  app.get(
    '/courses/:id/preview',
    {
      config: { auth: true },
      schema: htmlPageSchema({
        summary: "A course's learner page as a new learner sees it, for its managers (read-only)",
        params: CourseIdParams,
      }),
    },
    async (request, reply) => {
      const { session, ctx } = await signedIn(app, request);
      const { t } = ctx;
      const id = request.params.id;
      if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID) throw new NotFoundError('Course not found');
      // The owner teacher, an admin of its institution, a super_admin (404 unknown, 403 anyone else).
      await assertManages(app.db, session.caller, id);
      const path = await loadCoursePath(app.db, session.caller.userId, id, 'preview');
      const body = html`<p><a href="${href('/dashboard/courses', id)}">${t.path.backToCourse}</a></p>
<h1>${path.courseName}</h1>
<p class="notice" role="status">${t.path.manager.previewBanner}</p>
${continueBox(ctx, path)}
${outline(ctx, path, null)}`;
      return sendPage(reply, page(ctx, path.courseName, body, { user: session.user, current: '/dashboard/catalog' }));
    },
  );
};

export default coursePage;
