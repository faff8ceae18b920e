import { LearningCourseIdParams, MAX_ID, RedirectResponse, text } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  assertManages,
  findGrants,
  grantAttempts,
  MAX_EXTRA_ATTEMPTS,
  MAX_GRANT_REASON,
  TooManyExtraAttemptsError,
} from '../../domain/learning/attempt-grants.js';
import { type CourseLearnerRow, findCourseLearners, LEARNERS_PAGE_SIZE, learnerStandingIn } from '../../domain/learning/course-learners.js';
import { certificateStatus, listLearnerCertificates } from '../../domain/learning/certificates.js';
import { mayRevokeCertificates } from '../../domain/learning/certificate-revocation.js';
import { loadCoursePath } from '../../domain/learning/course-path.js';
import { findUserProfile } from '../../domain/user-profile.js';
import { NotFoundError } from '../../errors.js';
import { CSV_DIALECTS, csvLine } from '../../lib/csv.js';
import { sendPage } from '../send.js';
import { pageSession } from '../session.js';
import { pager, progressBar } from '../view/components.js';
import { href, html } from '../view/html.js';
import { page } from '../view/layout.js';
import { certificateFlashOf, certificateSection } from './certificate-admin.js';
import { stepName } from './outline.js';
import { formOptions, formScope, PAGE, pageOptions, seeOther, signedIn } from '../page-route.js';

const LearnersQuery = z.object({ page: z.coerce.number().int().min(1).max(100_000).catch(1).default(1) }).passthrough();
const LearnerParams = z.object({
  id: z.coerce.number().int().min(1).max(MAX_ID),
  // Any id the LMS makes: UUIDs, and the synthetic seed's `<prefix>_<number>`.
  userId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
});
/** Loose: a wrong field is said on the page (`?granted=invalid`), not a 400. */
const GrantForm = z.object({}).passthrough().nullish();
const GrantFields = z.object({
  quizId: z.coerce.number().int().min(1).max(MAX_ID),
  extra: z.coerce.number().int().min(1).max(MAX_EXTRA_ATTEMPTS),
  reason: text().trim().min(1).max(MAX_GRANT_REASON),
});

/**
 * A course's learners for its managers (owner teacher, admins of its institution, super_admin):
 * the paged list with progress, quizzes, final exam, certificate and last activity; the same as
 * CSV; one learner's quiz attempts with the form that grants more (recorded with its reason).
 */
const learnersPages: FastifyPluginAsyncZod = async (app) => {
  formScope(app, 4096);

  app.get('/courses/:id/learners', pageOptions({ params: LearningCourseIdParams, querystring: LearnersQuery }), async (request, reply) => {
    const { session, ctx } = await signedIn(app, request);
    const { t, f } = ctx;
    const l = t.path.learners;
    const courseId = request.params.id;
    await assertManages(app.db, session.caller, courseId);
    const at = request.query.page;
    const [{ total, refunded, rows }, path] = await Promise.all([
      findCourseLearners(app.db, courseId, { offset: (at - 1) * LEARNERS_PAGE_SIZE, limit: LEARNERS_PAGE_SIZE }),
      loadCoursePath(app.db, session.caller.userId, courseId, 'preview'),
    ]);
    const now = app.clock();
    const certificateBadge = (r: { certificateRevokedAt: Date | null; certificateExpiresAt: Date | null }) => {
      const status = certificateStatus({ revokedAt: r.certificateRevokedAt, expiresAt: r.certificateExpiresAt }, now);
      return status !== 'valid' && html` <span class="badge status-${status}">${t.certificateDocs.status[status]}</span>`;
    };
    // A refund ended the learner's access: said under their name, with its reason.
    const refundNote = (refund: CourseLearnerRow['refund']) =>
      refund &&
      html`<div><span class="badge revoked">${l.refunded(f.dateTime(refund.at) ?? '')}</span></div>${refund.reason && html`<div class="muted">${refund.reason}</div>`}${refund.certificateKeptReason && html`<div class="muted">${l.certificateKept(refund.certificateKeptReason)}</div>`}`;
    const list =
      total === 0
        ? html`<p class="muted">${l.none}</p>`
        : html`<div class="table-wrap"><table class="responsive">
<thead><tr><th scope="col">${l.learner}</th><th scope="col">${l.progress}</th><th scope="col" class="num">${l.chapters}</th><th scope="col">${l.quizzes}</th><th scope="col" class="num">${l.bestQuiz}</th><th scope="col">${l.final}</th><th scope="col">${l.certificate}</th><th scope="col">${l.lastActivity}</th><th scope="col">${l.actions}</th></tr></thead>
<tbody>${rows.map(
            (r) => html`<tr>
<td data-label="${l.learner}"><div>${r.name}</div><div class="muted">${r.email}</div>${refundNote(r.refund)}</td>
<td data-label="${l.progress}">${progressBar(ctx, r.progress, t.common.progressOf(r.name))}</td>
<td data-label="${l.chapters}" class="num">${f.number(r.chaptersDone)} / ${f.number(r.chaptersTotal)}</td>
<td data-label="${l.quizzes}">${l.quizzesCell(r.quizzesPassed, r.quizzesTotal, r.quizAttempts)}</td>
<td data-label="${l.bestQuiz}" class="num">${r.bestQuizScore === null ? '—' : f.number(r.bestQuizScore)}</td>
<td data-label="${l.final}">${r.finalPassed && r.finalBest !== null ? l.finalPassed(r.finalBest) : l.finalNotYet(r.finalBest, r.finalAttempts)}</td>
<td data-label="${l.certificate}">${r.certificateCode ? html`<a href="${href('/certificates', r.certificateCode)}">${f.dateTime(r.certificateIssuedAt ?? '') ?? ''}</a>${certificateBadge(r)} · <a href="${href('/dashboard/courses', courseId, 'learners', r.userId).withFragment('certificate')}" aria-label="${t.certificateDocs.admin.manageLabel(r.name)}">${t.certificateDocs.admin.manage}</a>` : l.noCertificate}</td>
<td data-label="${l.lastActivity}">${t.path.seen(r.lastActivity)}</td>
<td data-label="${l.actions}"><a href="${href('/dashboard/courses', courseId, 'learners', r.userId)}" aria-label="${l.attemptsLabel(r.name)}">${l.attempts}</a></td>
</tr>
`,
          )}</tbody></table></div>`;
    const body = html`<p><a href="${href('/dashboard/courses', courseId)}">${t.path.backToCourse}</a></p>
<h1>${l.title(path.courseName)}</h1>
<p>${l.intro(total - refunded)}${refunded > 0 && html` ${l.refundedCount(refunded)}`} <a href="${href('/dashboard/courses', courseId, 'learners.csv')}" download>${l.csv}</a> · <a href="${href('/dashboard/courses', courseId, 'reports')}">${t.reports.reportsLink}</a></p>
${list}
${pager(ctx, { page: at, totalPages: Math.max(1, Math.ceil(total / LEARNERS_PAGE_SIZE)) }, (n) => href('/dashboard/courses', courseId, 'learners').withQuery({ page: n }))}`;
    return sendPage(reply, page(ctx, l.title(path.courseName), body, { user: session.user, current: '/dashboard' }));
  });

  app.get(
    '/courses/:id/learners.csv',
    {
      config: { auth: true, documentLimited: true },
      schema: { ...PAGE, params: LearningCourseIdParams, response: { 200: z.string(), 302: RedirectResponse } },
    },
    async (request, reply) => {
      const session = await pageSession(app, request);
      const courseId = request.params.id;
      await assertManages(app.db, session.caller, courseId);
      // Comma-separated whatever the page language (the file's columns are named in English).
      const csv = CSV_DIALECTS.en;
      const header = csvLine(
        [
          'name',
          'email',
          'membership_id',
          'enrolled_at',
          'progress_percent',
          'chapters_done',
          'chapters_total',
          'quizzes_passed',
          'quizzes_total',
          'quiz_attempts',
          'best_quiz_score',
          'final_best_score',
          'final_passed',
          'final_attempts',
          'certificate_code',
          'certificate_issued_at',
          'last_activity',
          'refunded_at',
          'refund_reason',
          'certificate_kept_reason',
        ],
        csv,
      );
      let out = header;
      // Page by page, so a large course never loads at once (bounded statements per page).
      for (let offset = 0; ; offset += 500) {
        const { rows } = await findCourseLearners(app.db, courseId, { offset, limit: 500 });
        for (const r of rows)
          out += csvLine(
            [
              r.name,
              r.email,
              r.membershipId,
              r.enrolledAt.toISOString(),
              r.progress,
              r.chaptersDone,
              r.chaptersTotal,
              r.quizzesPassed,
              r.quizzesTotal,
              r.quizAttempts,
              r.bestQuizScore,
              r.finalBest,
              r.finalPassed ? 'yes' : 'no',
              r.finalAttempts,
              r.certificateCode,
              r.certificateIssuedAt?.toISOString() ?? null,
              r.lastActivity.toISOString(),
              r.refund?.at.toISOString() ?? null,
              r.refund?.reason ?? null,
              r.refund?.certificateKeptReason ?? null,
            ],
            csv,
          );
        if (rows.length < 500) break;
      }
      return reply
        .type('text/csv; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', `attachment; filename="course-${courseId}-learners.csv"`)
        .send(out);
    },
  );

  app.get('/courses/:id/learners/:userId', pageOptions({ params: LearnerParams }), async (request, reply) => {
    const { session, ctx } = await signedIn(app, request);
    const { t, f } = ctx;
    const g = t.path.grants;
    const { id: courseId, userId } = request.params;
    await assertManages(app.db, session.caller, courseId);
    // Enrolled, or refunded since (the list links both): their attempts and certificates stay to be read.
    const standing = await learnerStandingIn(app.db, userId, courseId);
    if (standing === null) throw new NotFoundError('Learner not found in this course');
    const [learner, path, grants, certs, mayRevoke] = await Promise.all([
      findUserProfile(app.db, userId),
      loadCoursePath(app.db, userId, courseId, 'learner'),
      findGrants(app.db, userId, courseId),
      listLearnerCertificates(app.db, userId, courseId),
      mayRevokeCertificates(app.db, session.caller, courseId),
    ]);
    const quizzes = [...path.modules.flatMap((m) => m.steps), ...(path.final ? [path.final] : [])].filter((s) => s.kind !== 'chapter');
    const flashValue = (request.query as Record<string, unknown> | undefined)?.granted;
    const refused = flashValue === 'invalid' || flashValue === 'capped';
    const flash =
      (flashValue === 'granted' || refused) &&
      html`<p class="${refused ? 'error' : 'success'}" role="${refused ? 'alert' : 'status'}">${g.flash[flashValue]}</p>`;
    const name = learner?.name ?? userId;
    const body = html`<p><a href="${href('/dashboard/courses', courseId, 'learners')}">${t.path.manager.learners}</a></p>
<h1>${g.title(name)}</h1>
<p class="muted">${path.courseName}</p>
${mayRevoke === true && html`<p><a href="${href('/dashboard/courses', courseId, 'learners', userId, 'evidence')}">${t.reports.trailLink}</a></p>`}
${flash}
<div class="table-wrap"><table class="responsive">
<thead><tr><th scope="col">${g.quiz}</th><th scope="col" class="num">${g.used}</th><th scope="col" class="num">${g.allowed}</th><th scope="col">${g.state}</th></tr></thead>
<tbody>${quizzes.map(
      (
        s,
      ) => html`<tr><td data-label="${g.quiz}">${stepName(ctx, s)}</td><td data-label="${g.used}" class="num">${f.number(s.tally?.used ?? 0)}</td><td data-label="${g.allowed}" class="num">${f.number(s.tally?.allowed ?? 0)}</td><td data-label="${g.state}">${
        s.tally?.passed ? g.passed : (s.tally?.used ?? 0) >= (s.tally?.allowed ?? 0) ? g.spent : g.ongoing
      }</td></tr>
`,
    )}</tbody></table></div>
${
  standing === 'refunded'
    ? html`<p class="notice" role="status">${g.refunded}</p>`
    : html`<section class="card" aria-labelledby="grant"><h2 id="grant">${g.form}</h2>
<form method="post" class="stack" action="${href('/dashboard/courses', courseId, 'learners', userId, 'grants')}">
<label>${g.quiz} <select name="quizId" required>${quizzes.map((s) => html`<option value="${s.id}">${stepName(ctx, s)}</option>`)}</select></label>
<label>${g.extra} <input type="number" name="extra" min="1" max="${MAX_EXTRA_ATTEMPTS}" value="1" required></label>
<label>${g.reason} <textarea name="reason" rows="3" maxlength="${MAX_GRANT_REASON}" required></textarea></label>
<p class="muted">${g.keysSeen}</p>
<button type="submit">${g.submit}</button>
</form></section>`
}
<section aria-labelledby="history"><h2 id="history">${g.history}</h2>
${
  grants.length === 0
    ? html`<p class="muted">${g.none}</p>`
    : html`<ul>${grants.map((r) => html`<li>${g.row(r.extraAttempts, t.path.quizLabel(r.quizName), r.grantedByName, f.dateTime(r.grantedAt) ?? '')}<div class="muted">${r.reason}</div></li>`)}</ul>`
}
</section>
${certificateSection(ctx, { courseId, userId, certificates: certs, mayRevoke: mayRevoke === true, flash: certificateFlashOf(request.query), now: app.clock() })}`;
    return sendPage(reply, page(ctx, g.title(name), body, { user: session.user, current: '/dashboard' }));
  });

  app.post('/courses/:id/learners/:userId/grants', formOptions({ params: LearnerParams, body: GrantForm }), async (request, reply) => {
    const session = await pageSession(app, request);
    const { id: courseId, userId } = request.params;
    const back = `/dashboard/courses/${courseId}/learners/${encodeURIComponent(userId)}`;
    // Who may grant is decided before the form is read: an attacker learns nothing from its errors.
    await assertManages(app.db, session.caller, courseId);
    const fields = GrantFields.safeParse(request.body ?? {});
    if (!fields.success) return seeOther(reply, `${back}?granted=invalid#grant`);
    try {
      await grantAttempts(
        app.db,
        app.receipts,
        session.caller,
        { courseId, userId, quizId: fields.data.quizId, extra: fields.data.extra, reason: fields.data.reason },
        app.clock(),
      );
    } catch (err) {
      if (!(err instanceof TooManyExtraAttemptsError)) throw err;
      return seeOther(reply, `${back}?granted=capped#grant`);
    }
    return seeOther(reply, `${back}?granted=granted`);
  });
};

export default learnersPages;
