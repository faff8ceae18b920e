import {
  AttemptIdParams,
  ChapterIdParams,
  HtmlPage,
  LearningCourseIdParams,
  QuizAnswers,
  QuizIdParams,
  RedirectResponse,
} from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LockedError, NotEnrolledError } from '../../domain/learning/access.js';
import { completeChapter, findChapterRow, openChapter } from '../../domain/learning/chapters.js';
import { type CoursePath, findStep, loadCoursePath, pathRoleOf } from '../../domain/learning/course-path.js';
import { mayReview, reviewAttempt } from '../../domain/learning/quiz-review.js';
import { findOwnCertificate, setCertificatePrivacy } from '../../domain/learning/certificates.js';
import { certificateFileName, certificatePdf } from '../../documents/certificate-pdf.js';
import {
  findOwnAttempt,
  findQuiz,
  listOwnAttempts,
  passMark,
  previewQuestions,
  startAttempt,
  submitAttempt,
} from '../../domain/learning/quiz-attempts.js';
import { mayOpenCourse } from '../../domain/catalog/viewer.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../errors.js';
import { acceptFormBodies } from '../form-body.js';
import { type PageContext, pageContext } from '../i18n/index.js';
import { MARKDOWN_PAGE_CSP, sendPage } from '../send.js';
import { pageSession } from '../session.js';
import { href, html, type Html } from '../view/html.js';
import { page } from '../view/layout.js';
import { markdownFragment } from '../view/markdown.js';
import { certificateCard, statusNotice } from './certificate-card.js';
import { nextStepBox, outline, stepName } from './outline.js';

const PAGE = { hide: true, tags: ['pages'] };
/** The printable page's flash after the privacy form (anything else: none). */
const PrivacyFlash = z.object({ privacy: z.literal('saved').optional().catch(undefined) }).passthrough();
/** The privacy form: `private` or `public`; anything else is a 404 page (the schema), nothing changed. */
const PrivacyForm = z.object({ visibility: z.enum(['private', 'public']) });

/**
 * The learner's pages: a chapter (mark complete), a quiz (start, answer as a form, the result),
 * the printable certificate. Plain same-origin forms (POST, then 303 back); the same domain code
 * as /api/learning. A plain form cannot send `x-requested-with`: these POSTs take the CSRF plugin's
 * form rule (`csrf: 'form'`: Origin or Sec-Fetch-Site must say same-origin).
 */
/** A learning page: the way back to the course, the page itself, and the course outline beside it. */
function learnLayout(ctx: PageContext, path: CoursePath, main: Html, current: { kind: 'chapter' | 'quiz'; id: number }): Html {
  return html`<p><a href="${href('/dashboard/courses', path.courseId)}">${ctx.t.path.backToCourse}</a></p>
<div class="with-outline"><div>${main}</div>
${outline(ctx, path, current)}</div>`;
}

const learnPages: FastifyPluginAsyncZod = async (app) => {
  acceptFormBodies(app, 256 * 1024);
  // A 403 page shows its error's message (../index.ts): a locked part or a missing enrolment is
  // said in the person's language, not in the domain's English. Rethrown to the pages' handler.
  app.setErrorHandler(async (err, request) => {
    const words = pageContext(app, request).t.learn.refused;
    if (err instanceof NotEnrolledError) throw new ForbiddenError(words.notEnrolled);
    if (err instanceof LockedError) throw new ForbiddenError(words.locked(err.step));
    throw err;
  });

  app.get(
    '/chapters/:id',
    { config: { auth: true }, schema: { ...PAGE, params: ChapterIdParams, response: { 200: HtmlPage, 302: RedirectResponse } } },
    async (request, reply) => {
      const session = await pageSession(app, request);
      const ctx = pageContext(app, request);
      const { t } = ctx;
      const row = await findChapterRow(app.db, request.params.id);
      if (!row) throw new NotFoundError('Chapter not found');
      const { role } = await pathRoleOf(app.db, session.caller, row.courseId);
      // A manager not enrolled reads it as a learner would, read-only (no progress written);
      // anyone else goes through the learner's refusals (not enrolled, locked: a 403 saying why).
      const preview = role === 'manager';
      const ch = preview ? null : await openChapter(app.db, session.caller.userId, row.id);
      const path = await loadCoursePath(app.db, session.caller.userId, row.courseId, preview ? 'preview' : 'learner');
      // biome-ignore lint/style/noNonNullAssertion: a chapter of the course is a step of its path.
      const step = findStep(path, 'chapter', row.id)!;
      const done = ch?.completed ?? false;
      const action = preview
        ? html`<p class="notice">${t.path.manager.readOnly}</p>`
        : done
          ? html`<p><span class="badge completed">${t.learn.chapter.completed}</span> ${t.path.chapterDone}</p>`
          : html`<form method="post" action="${href('/learn/chapters', row.id, 'complete')}"><button type="submit">${t.learn.chapter.markComplete}</button></form>`;
      // Once per chapter text for every reader, off the event loop (lib/markdown/renderer.ts).
      const content = await app.markdown.render(row.content);
      const main = html`<p class="muted">${t.learn.chapter.ofCourse(row.courseName, row.moduleName)}</p>
<h1>${row.name}</h1>
${preview && html`<p class="notice">${t.path.manager.previewBanner}</p>`}
<article class="card">${markdownFragment(content)}</article>
${action}
${(preview || done) && nextStepBox(ctx, path, step)}`;
      return sendPage(
        reply,
        page(ctx, row.name, learnLayout(ctx, path, main, { kind: 'chapter', id: row.id }), { user: session.user, current: '/dashboard' }),
        200,
        MARKDOWN_PAGE_CSP,
      );
    },
  );

  app.post(
    '/chapters/:id/complete',
    { config: { auth: true, csrf: 'form' }, schema: { ...PAGE, params: ChapterIdParams, response: { 303: RedirectResponse } } },
    async (request, reply) => {
      const session = await pageSession(app, request);
      await completeChapter(app.db, session.caller.userId, request.params.id, app.clock());
      // Back to the chapter, which now says it is done and offers the next step (or says what opens it).
      return reply.header('cache-control', 'no-store').redirect(`/learn/chapters/${request.params.id}`, 303);
    },
  );

  app.get(
    '/quizzes/:id',
    { config: { auth: true }, schema: { ...PAGE, params: QuizIdParams, response: { 200: HtmlPage, 302: RedirectResponse } } },
    async (request, reply) => {
      // Starting is a POST (it spends an attempt); this page offers it only when it would work.
      const session = await pageSession(app, request);
      const ctx = pageContext(app, request);
      const { t } = ctx;
      const p = t.path.quiz;
      const quiz = await findQuiz(app.db, request.params.id);
      // A quiz of a course this person may not see (a draft, an unpublished course they are not
      // enrolled in) does not exist for them.
      if (!quiz || !(await mayOpenCourse(app.db, session.caller, quiz.courseId))) throw new NotFoundError('Quiz not found');
      const { role } = await pathRoleOf(app.db, session.caller, quiz.courseId);
      if (role === 'none') throw new NotEnrolledError();
      const preview = role === 'manager';
      const path = await loadCoursePath(app.db, session.caller.userId, quiz.courseId, preview ? 'preview' : 'learner');
      // biome-ignore lint/style/noNonNullAssertion: a quiz of the course is a step of its path.
      const step = findStep(path, 'quiz', quiz.id)!;
      const title = stepName(ctx, step);
      const facts = html`<p class="muted">${t.learn.quiz.passMark(passMark(quiz))} · ${t.learn.quiz.timeLimit(quiz.timeLimit)} · ${t.learn.quiz.maxAttempts(quiz.maxAttempts)}</p>`;
      let main: Html;
      if (preview) {
        const questions = await previewQuestions(app.db, quiz.id);
        main = html`<p class="notice">${t.path.manager.previewBanner}</p>
<p>${t.path.manager.noStart}</p>
<ol class="review">${questions.map(
          (q) =>
            html`<li>${q.questionText}${q.options.length > 0 && html`<ul>${q.options.map((o) => html`<li>${o.text}</li>`)}</ul>`}</li>`,
        )}</ol>
${nextStepBox(ctx, path, step)}`;
      } else {
        // biome-ignore lint/style/noNonNullAssertion: a learner's quiz step has its tally.
        const tally = step.tally!;
        const attempts = await listOwnAttempts(app.db, session.caller.userId, quiz.id);
        const list =
          attempts.length > 0 &&
          html`<section aria-labelledby="attempts"><h2 id="attempts">${p.yourAttempts}</h2><ul>${attempts.map(
            (a) =>
              html`<li><a href="${href('/learn/quiz-attempts', a.id)}">${p.attemptLine(a.number, a.submittedAt === null ? null : a.score, a.passed)}</a></li>`,
          )}</ul>${tally.best !== null && html`<p>${p.best(tally.best)}</p>`}</section>`;
        const used = html`<p>${p.attemptsUsed(tally.used, tally.allowed)}</p>`;
        let offer: Html;
        if (step.state === 'locked') offer = html`<p class="warning">${p.locked} ${t.path.waitsFor(path.waitingFor)}</p>`;
        else if (step.state === 'done') offer = html`<p class="success">${p.passedAlready}</p>${nextStepBox(ctx, path, step)}`;
        else if (tally.openAttemptId !== null)
          offer = html`<p><a href="${href('/learn/quiz-attempts', tally.openAttemptId)}">${p.continueAttempt}</a></p>`;
        else if (step.outOfAttempts) offer = html`<p class="warning">${p.outOfAttempts(tally.used, tally.allowed)}</p>`;
        else
          offer = html`<form method="post" action="${href('/learn/quizzes', quiz.id, 'start')}"><button type="submit">${t.learn.quiz.start}</button></form>`;
        main = html`${used}${offer}${list}`;
      }
      const body = html`<h1>${title}</h1>
${quiz.description && html`<p>${quiz.description}</p>`}
${facts}
${main}`;
      return sendPage(
        reply,
        page(ctx, title, learnLayout(ctx, path, body, { kind: 'quiz', id: quiz.id }), { user: session.user, current: '/dashboard' }),
      );
    },
  );

  app.post(
    '/quizzes/:id/start',
    { config: { auth: true, csrf: 'form' }, schema: { ...PAGE, params: QuizIdParams, response: { 303: RedirectResponse } } },
    async (request, reply) => {
      const session = await pageSession(app, request);
      try {
        const { attempt } = await startAttempt(app.db, session.caller.userId, request.params.id, app.clock());
        return reply.header('cache-control', 'no-store').redirect(`/learn/quiz-attempts/${attempt.attemptId}`, 303);
      } catch (err) {
        // No attempt left (a second tab, a stale page): back to the quiz page, which says so and who can grant more.
        if (!(err instanceof ConflictError)) throw err;
        return reply.header('cache-control', 'no-store').redirect(`/learn/quizzes/${request.params.id}`, 303);
      }
    },
  );

  app.get(
    '/quiz-attempts/:id',
    { config: { auth: true }, schema: { ...PAGE, params: AttemptIdParams, response: { 200: HtmlPage, 302: RedirectResponse } } },
    async (request, reply) => {
      const session = await pageSession(app, request);
      const ctx = pageContext(app, request);
      const { t } = ctx;
      const p = t.path.quiz;
      const { attempt, view, quiz } = await findOwnAttempt(app.db, session.caller.userId, request.params.id);
      const q = view.quiz;
      const path = await loadCoursePath(app.db, session.caller.userId, q.courseId, 'learner');
      const step = findStep(path, 'quiz', q.id);
      const allowed = step?.tally?.allowed ?? q.maxAttempts;
      const facts = html`<p class="muted">${t.learn.quiz.attempt(view.attemptNumber, allowed)} · ${t.learn.quiz.passMark(q.passMark)} · ${t.learn.quiz.timeLimit(q.timeLimit)}</p>`;
      let main: Html;
      if (attempt.submittedAt === null) {
        const questions = view.questions.map(
          (question, i) => html`<fieldset class="question"><legend>${i + 1}. ${question.questionText}</legend>
${
  question.questionType === 'multiple_answer'
    ? question.options.map(
        // One name per option (a form sends a repeated name, and only its first value is read): joined on submit.
        (o) => html`<label><input type="checkbox" name="${`q${question.id}.${o.id}`}" value="1"> ${o.text}</label><br>
`,
      )
    : question.options.length > 0
      ? question.options.map(
          (o) => html`<label><input type="radio" name="${`q${question.id}`}" value="${o.id}"> ${o.text}</label><br>
`,
        )
      : html`<label>${t.learn.quiz.answerText} <textarea name="${`q${question.id}`}" rows="3"></textarea></label>`
}
</fieldset>
`,
        );
        main = html`${view.expiresAt && html`<p>${t.learn.quiz.until(view.expiresAt)}</p>`}
<form method="post" action="${href('/learn/quiz-attempts', attempt.id, 'submit')}">
${questions}
<button type="submit">${t.learn.quiz.submit}</button>
</form>`;
      } else {
        const score = attempt.score ?? 0;
        const quizPassed = step?.tally?.passed ?? attempt.passed === true;
        const left = Math.max(0, allowed - (step?.tally?.used ?? 0));
        const cert = attempt.passed ? await findOwnCertificate(app.db, session.caller.userId, q.courseId) : null;
        const again = !quizPassed && left > 0 && step?.tally?.openAttemptId == null;
        const review = mayReview(quiz, { passed: quizPassed, attemptsLeft: left })
          ? html`<section aria-labelledby="review"><h2 id="review">${p.review}</h2><ol class="review">${(
              await reviewAttempt(app.db, attempt.questions ?? [], attempt.answers)
            ).map(
              (r) => html`<li><p>${r.text}</p>
<p>${p.yourAnswer}: ${r.given ?? p.noAnswer}${r.correct !== null && html` · <strong>${r.correct ? p.right : p.wrong}</strong>`}</p>
<p>${r.right === null ? p.notScored : html`${p.rightAnswer}: ${r.right}`}</p>
${r.explanation && html`<p class="muted">${p.explanation}: ${r.explanation}</p>`}</li>
`,
            )}</ol></section>`
          : html`<p class="muted">${q.scope === 'final' ? p.reviewFinalLater : p.reviewLater}</p>`;
        main = html`<section class="card" aria-labelledby="result"><h2 id="result">${t.learn.quiz.result}</h2>
<p>${t.learn.quiz.score(score)} · <strong>${attempt.passed ? t.learn.quiz.passed : t.learn.quiz.failed}</strong></p>
<p>${p.attemptsLeft(left)}</p>
${again && html`<form method="post" action="${href('/learn/quizzes', q.id, 'start')}"><button type="submit">${t.learn.quiz.tryAgain}</button></form>`}
${!quizPassed && left === 0 && html`<p class="warning">${p.outOfAttempts(step?.tally?.used ?? allowed, allowed)}</p>`}
${cert && html`<p>${t.learn.quiz.certificateEarned} <a href="${href('/learn/certificates', q.courseId)}">${t.learn.certificate.open}</a></p>`}
</section>
${quizPassed && step && nextStepBox(ctx, path, step)}
${review}`;
      }
      const title = step ? stepName(ctx, step) : q.name;
      const body = html`<h1>${title}</h1>
${q.description && html`<p>${q.description}</p>`}
${facts}
${main}`;
      return sendPage(
        reply,
        page(ctx, title, learnLayout(ctx, path, body, { kind: 'quiz', id: q.id }), { user: session.user, current: '/dashboard' }),
      );
    },
  );

  app.post(
    '/quiz-attempts/:id/submit',
    {
      config: { auth: true, csrf: 'form' },
      schema: { ...PAGE, params: AttemptIdParams, body: QuizAnswers, response: { 303: RedirectResponse } },
    },
    async (request, reply) => {
      const session = await pageSession(app, request);
      const answers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.body)) {
        if (/^q\d{1,12}$/.test(name)) answers[name.slice(1)] = value;
        // A ticked box of a multiple-answer question, `q<question>.<option>`: the answer is the ticked options' ids.
        const ticked = name.match(/^q(\d{1,12})\.([A-Za-z0-9_-]{1,16})$/);
        if (ticked) answers[ticked[1]] = answers[ticked[1]] ? `${answers[ticked[1]]},${ticked[2]}` : ticked[2];
      }
      try {
        await submitAttempt(app.db, session.caller.userId, request.params.id, answers, app.clock());
      } catch (err) {
        // Sent twice, or after the time limit: the attempt's page says how it ended.
        if (!(err instanceof ConflictError)) throw err;
      }
      return reply.header('cache-control', 'no-store').redirect(`/learn/quiz-attempts/${request.params.id}`, 303);
    },
  );

  app.get(
    '/certificates/:id',
    // A course id past the int4 range is a 404 page (the schema bounds it), not a failed statement.
    {
      config: { auth: true },
      schema: { ...PAGE, params: LearningCourseIdParams, querystring: PrivacyFlash, response: { 200: HtmlPage, 302: RedirectResponse } },
    },
    async (request, reply) => {
      const session = await pageSession(app, request);
      const ctx = pageContext(app, request);
      const { t } = ctx;
      const d = t.certificateDocs;
      const courseId = request.params.id;
      const cert = await findOwnCertificate(app.db, session.caller.userId, courseId);
      if (!cert) throw new NotFoundError('Certificate not found');
      // The holder's choice, a plain form (works without JavaScript); not printed.
      const privacy = html`<section class="card no-print" aria-labelledby="privacy-title" id="privacy"><h2 id="privacy-title">${d.privacy.title}</h2>
${request.query.privacy === 'saved' && html`<p class="success" role="status">${d.privacy.saved}</p>`}
<p>${cert.isPrivate ? d.privacy.isPrivate : d.privacy.isPublic}</p>
<form method="post" action="${href('/learn/certificates', courseId, 'privacy')}">
<input type="hidden" name="visibility" value="${cert.isPrivate ? 'public' : 'private'}">
<button type="submit">${cert.isPrivate ? d.privacy.makePublic : d.privacy.makePrivate}</button>
</form></section>`;
      const body = html`<div class="no-print">${statusNotice(ctx, cert, app.clock())}</div>
${certificateCard(ctx, cert, app.config.PUBLIC_URL, true)}
<p class="no-print"><a href="${href('/learn/certificates', courseId, 'pdf')}" download>${d.downloadPdf}</a></p>
<p class="credential-download no-print"><a href="${href('/api/learning/certificates', cert.code, 'credential')}" download="certificate-${cert.code}.jwt">${t.learn.certificate.credential}</a>
<span class="muted">${t.learn.certificate.credentialHint}</span></p>
<p class="muted no-print">${t.learn.certificate.print}</p>
${privacy}`;
      return sendPage(reply, page(ctx, t.learn.certificate.title, body, { user: session.user }));
    },
  );

  app.get(
    '/certificates/:id/pdf',
    // Only the holder's own, as the printable page: another person's course id is a 404 page, no session a redirect to sign-in.
    // No response schema: the bytes go out as they are (a Buffer is never serialized).
    { config: { auth: true, documentLimited: true }, schema: { ...PAGE, params: LearningCourseIdParams } },
    async (request, reply) => {
      const session = await pageSession(app, request);
      const ctx = pageContext(app, request);
      const cert = await findOwnCertificate(app.db, session.caller.userId, request.params.id);
      if (!cert) throw new NotFoundError('Certificate not found');
      const bytes = await certificatePdf(cert, { lang: ctx, publicUrl: app.config.PUBLIC_URL, now: app.clock() });
      const name = certificateFileName(cert, ctx.t.certificateDocs.pdf.fileStem);
      return reply
        .type('application/pdf')
        .header('cache-control', 'no-store')
        .header('vary', 'Accept-Language, Cookie')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(bytes);
    },
  );

  app.post(
    '/certificates/:id/privacy',
    {
      config: { auth: true, csrf: 'form' },
      schema: { ...PAGE, params: LearningCourseIdParams, body: PrivacyForm, response: { 303: RedirectResponse } },
    },
    async (request, reply) => {
      const session = await pageSession(app, request);
      const courseId = request.params.id;
      // The holder's own certificate of that course (the one the printable page shows), or a 404 page.
      const cert = await findOwnCertificate(app.db, session.caller.userId, courseId);
      if (!cert) throw new NotFoundError('Certificate not found');
      await setCertificatePrivacy(app.db, session.caller.userId, cert.id, request.body.visibility === 'private');
      return reply.header('cache-control', 'no-store').redirect(`/learn/certificates/${courseId}?privacy=saved#privacy`, 303);
    },
  );
};

export default learnPages;
