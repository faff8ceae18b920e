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
import { LockedError, NotEnrolledError } from '../../domain/learning/access.js';
import { completeChapter, openChapter } from '../../domain/learning/chapters.js';
import { findOwnCertificate } from '../../domain/learning/certificates.js';
import { findOwnAttempt, findQuiz, passMark, startAttempt, submitAttempt } from '../../domain/learning/quiz-attempts.js';
import { mayOpenCourse } from '../../domain/catalog/viewer.js';
import { ForbiddenError, NotFoundError } from '../../errors.js';
import { acceptFormBodies } from '../form-body.js';
import { pageContext } from '../i18n/index.js';
import { MARKDOWN_PAGE_CSP, sendPage } from '../send.js';
import { pageSession } from '../session.js';
import { href, html, type Html } from '../view/html.js';
import { page } from '../view/layout.js';
import { renderMarkdown } from '../view/markdown.js';
import { certificateCard } from './certificate-card.js';

const PAGE = { hide: true, tags: ['pages'] };

/**
 * The learner's pages: a chapter (mark complete), a quiz (start, answer as a form, the result),
 * the printable certificate. Plain same-origin forms (POST, then 303 back); the same domain code
 * as /api/learning. A plain form cannot send `x-requested-with`: these POSTs take the CSRF plugin's
 * form rule (`csrf: 'form'`: Origin or Sec-Fetch-Site must say same-origin).
 */
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
      const ch = await openChapter(app.db, session.caller.userId, request.params.id);
      const body = html`<p><a href="${href('/dashboard/courses', ch.courseId)}">${t.learn.chapter.backToCourse}</a></p>
<p class="muted">${t.learn.chapter.ofCourse(ch.courseName, ch.moduleName)}</p>
<h1>${ch.name}</h1>
<article class="card">${renderMarkdown(ch.content)}</article>
${
  ch.completed
    ? html`<p><span class="badge completed">${t.learn.chapter.completed}</span></p>`
    : html`<form method="post" action="${href('/learn/chapters', ch.id, 'complete')}"><button type="submit">${t.learn.chapter.markComplete}</button></form>`
}
${ch.quizId !== null && html`<p><a href="${href('/learn/quizzes', ch.quizId)}">${t.learn.chapter.takeQuiz}</a></p>`}
${ch.nextChapterId !== null && html`<p><a href="${href('/learn/chapters', ch.nextChapterId)}">${t.learn.chapter.next}</a></p>`}`;
      return sendPage(reply, page(ctx, ch.name, body, { user: session.user, current: '/dashboard/catalog' }), 200, MARKDOWN_PAGE_CSP);
    },
  );

  app.post(
    '/chapters/:id/complete',
    { config: { auth: true, csrf: 'form' }, schema: { ...PAGE, params: ChapterIdParams, response: { 303: RedirectResponse } } },
    async (request, reply) => {
      const session = await pageSession(app, request);
      await completeChapter(app.db, session.caller.userId, request.params.id, app.clock());
      return reply.header('cache-control', 'no-store').redirect(`/learn/chapters/${request.params.id}`, 303);
    },
  );

  app.get(
    '/quizzes/:id',
    { config: { auth: true }, schema: { ...PAGE, params: QuizIdParams, response: { 200: HtmlPage, 302: RedirectResponse } } },
    async (request, reply) => {
      // Starting is a POST (it spends an attempt); this page only offers it.
      const session = await pageSession(app, request);
      const ctx = pageContext(app, request);
      const { t } = ctx;
      const quiz = await findQuiz(app.db, request.params.id);
      // A quiz of a course this person may not see (a draft, an unpublished course they are not
      // enrolled in) does not exist for them.
      if (!quiz || !(await mayOpenCourse(app.db, session.caller, quiz.courseId))) throw new NotFoundError('Quiz not found');
      const body = html`<p><a href="${href('/dashboard/courses', quiz.courseId)}">${t.learn.chapter.backToCourse}</a></p>
<h1>${quiz.name}</h1>
${quiz.description && html`<p>${quiz.description}</p>`}
<p class="muted">${t.learn.quiz.passMark(passMark(quiz))} · ${t.learn.quiz.timeLimit(quiz.timeLimit)} · ${t.learn.quiz.maxAttempts(quiz.maxAttempts)}</p>
<form method="post" action="${href('/learn/quizzes', quiz.id, 'start')}"><button type="submit">${t.learn.quiz.start}</button></form>`;
      return sendPage(reply, page(ctx, quiz.name, body, { user: session.user, current: '/dashboard/catalog' }));
    },
  );

  app.post(
    '/quizzes/:id/start',
    { config: { auth: true, csrf: 'form' }, schema: { ...PAGE, params: QuizIdParams, response: { 303: RedirectResponse } } },
    async (request, reply) => {
      const session = await pageSession(app, request);
      const { attempt } = await startAttempt(app.db, session.caller.userId, request.params.id, app.clock());
      return reply.header('cache-control', 'no-store').redirect(`/learn/quiz-attempts/${attempt.attemptId}`, 303);
    },
  );

  app.get(
    '/quiz-attempts/:id',
    { config: { auth: true }, schema: { ...PAGE, params: AttemptIdParams, response: { 200: HtmlPage, 302: RedirectResponse } } },
    async (request, reply) => {
      const session = await pageSession(app, request);
      const ctx = pageContext(app, request);
      const { t, f } = ctx;
      const { attempt, view } = await findOwnAttempt(app.db, session.caller.userId, request.params.id);
      const q = view.quiz;
      const facts = html`<p class="muted">${t.learn.quiz.attempt(view.attemptNumber, q.maxAttempts)} · ${t.learn.quiz.passMark(q.passMark)} · ${t.learn.quiz.timeLimit(q.timeLimit)}</p>`;
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
      : html`<label>${t.learn.quiz.answerText} <textarea name="${`q${question.id}`}" rows="3" cols="60"></textarea></label>`
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
        const cert = attempt.passed ? await findOwnCertificate(app.db, session.caller.userId, q.courseId) : null;
        main = html`<section class="card" aria-labelledby="result"><h2 id="result">${t.learn.quiz.result}</h2>
<p>${t.learn.quiz.score(score)} · <strong>${attempt.passed ? t.learn.quiz.passed : t.learn.quiz.failed}</strong></p>
${!attempt.passed && html`<form method="post" action="${href('/learn/quizzes', q.id, 'start')}"><button type="submit">${t.learn.quiz.tryAgain}</button></form>`}
${cert && html`<p>${t.learn.quiz.certificateEarned} <a href="${href('/learn/certificates', q.courseId)}">${t.learn.certificate.open}</a></p>`}
</section>`;
      }
      const body = html`<p><a href="${href('/dashboard/courses', q.courseId)}">${t.learn.chapter.backToCourse}</a></p>
<h1>${q.name}</h1>
${q.description && html`<p>${q.description}</p>`}
${facts}
${main}`;
      void f;
      return sendPage(reply, page(ctx, q.name, body, { user: session.user, current: '/dashboard/catalog' }));
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
      await submitAttempt(app.db, session.caller.userId, request.params.id, answers, app.clock());
      return reply.header('cache-control', 'no-store').redirect(`/learn/quiz-attempts/${request.params.id}`, 303);
    },
  );

  app.get(
    '/certificates/:id',
    // A course id past the int4 range is a 404 page (the schema bounds it), not a failed statement.
    { config: { auth: true }, schema: { ...PAGE, params: LearningCourseIdParams, response: { 200: HtmlPage, 302: RedirectResponse } } },
    async (request, reply) => {
      const session = await pageSession(app, request);
      const ctx = pageContext(app, request);
      const cert = await findOwnCertificate(app.db, session.caller.userId, request.params.id);
      if (!cert) throw new NotFoundError('Certificate not found');
      const body = html`${certificateCard(ctx, cert, app.config.PUBLIC_URL, true)}
<p class="muted">${ctx.t.learn.certificate.print}</p>`;
      return sendPage(reply, page(ctx, ctx.t.learn.certificate.title, body, { user: session.user }));
    },
  );
};

export default learnPages;
