import { AttemptIdParams, QuizAnswers, QuizIdParams } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { mayOpenCourse } from '../../domain/catalog/viewer.js';
import { NotEnrolledError } from '../../domain/learning/access.js';
import { findOwnCertificate } from '../../domain/learning/certificates.js';
import { type CoursePath, findStep, loadCoursePath, pathRoleOf } from '../../domain/learning/course-path.js';
import {
  findOwnAttempt,
  findQuiz,
  listOwnAttempts,
  passMark,
  previewQuestions,
  startAttempt,
  submitAttempt,
} from '../../domain/learning/quiz-attempts.js';
import { mayReview, reviewAttempt } from '../../domain/learning/quiz-review.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { PageContext } from '../i18n/index.js';
import { sendPage } from '../send.js';
import { type PageSession, pageSession } from '../session.js';
import { type Html, href, html } from '../view/html.js';
import { learnScope, stepPage } from './learn-scope.js';
import { nextStepBox, stepName } from './outline.js';
import { courseContactLine } from './contact.js';
import { formOptions, pageOptions, seeOther, signedIn } from '../page-route.js';

/** A quiz's screen: its title and description, its facts, then what the learner sees of it. */
function quizScreen(
  ctx: PageContext,
  session: PageSession,
  path: CoursePath,
  quiz: { title: string; description: string | null; id: number },
  facts: Html,
  main: Html,
): Html {
  const body = html`<h1>${quiz.title}</h1>
${quiz.description && html`<p>${quiz.description}</p>`}
${facts}
${main}`;
  return stepPage(ctx, session, quiz.title, path, body, { kind: 'quiz', id: quiz.id });
}

/**
 * A quiz (/learn/quizzes/:id: its facts, the learner's attempts and the one thing they can do
 * next) and an attempt (/learn/quiz-attempts/:id: the questions as a form, then the result and,
 * when the quiz allows it, the review).
 */
const quizPages: FastifyPluginAsyncZod = async (app) => {
  learnScope(app);

  app.get('/quizzes/:id', pageOptions({ params: QuizIdParams }), async (request, reply) => {
    // Starting is a POST (it spends an attempt); this page offers it only when it would work.
    const { session, ctx } = await signedIn(app, request);
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
        (q) => html`<li>${q.questionText}${q.options.length > 0 && html`<ul>${q.options.map((o) => html`<li>${o.text}</li>`)}</ul>`}</li>`,
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
      else if (step.outOfAttempts)
        offer = html`<p class="warning">${p.outOfAttempts(tally.used, tally.allowed)}</p>${await courseContactLine(app, ctx, quiz.courseId, 'grant')}`;
      else
        offer = html`<form method="post" action="${href('/learn/quizzes', quiz.id, 'start')}"><button type="submit">${t.learn.quiz.start}</button></form>`;
      main = html`${used}${offer}${list}`;
    }
    return sendPage(reply, quizScreen(ctx, session, path, { title, description: quiz.description, id: quiz.id }, facts, main));
  });

  app.post('/quizzes/:id/start', formOptions({ params: QuizIdParams }), async (request, reply) => {
    const session = await pageSession(app, request);
    try {
      const { attempt } = await startAttempt(app.db, session.caller.userId, request.params.id, app.clock());
      return seeOther(reply, `/learn/quiz-attempts/${attempt.attemptId}`);
    } catch (err) {
      // No attempt left (a second tab, a stale page): back to the quiz page, which says so and who can grant more.
      if (!(err instanceof ConflictError)) throw err;
      return seeOther(reply, `/learn/quizzes/${request.params.id}`);
    }
  });

  app.get('/quiz-attempts/:id', pageOptions({ params: AttemptIdParams }), async (request, reply) => {
    const { session, ctx } = await signedIn(app, request);
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
        (o) => html`<label><input type="checkbox" name="${`q${question.id}.${o.id}`}" value="1"> <span>${o.text}</span></label>
`,
      )
    : question.options.length > 0
      ? question.options.map(
          (o) => html`<label><input type="radio" name="${`q${question.id}`}" value="${o.id}"> <span>${o.text}</span></label>
`,
        )
      : html`<label class="above">${t.learn.quiz.answerText} <textarea name="${`q${question.id}`}" rows="3"></textarea></label>`
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
${!quizPassed && left === 0 && html`<p class="warning">${p.outOfAttempts(step?.tally?.used ?? allowed, allowed)}</p>${await courseContactLine(app, ctx, q.courseId, 'grant')}`}
${cert && html`<p>${t.learn.quiz.certificateEarned} <a href="${href('/learn/certificates', q.courseId)}">${t.learn.certificate.open}</a></p>`}
</section>
${quizPassed && step && nextStepBox(ctx, path, step)}
${review}`;
    }
    const title = step ? stepName(ctx, step) : q.name;
    return sendPage(reply, quizScreen(ctx, session, path, { title, description: q.description, id: q.id }, facts, main));
  });

  app.post('/quiz-attempts/:id/submit', formOptions({ params: AttemptIdParams, body: QuizAnswers }), async (request, reply) => {
    const session = await pageSession(app, request);
    const answers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.body)) {
      if (/^q\d{1,12}$/.test(name)) answers[name.slice(1)] = value;
      // A ticked box of a multiple-answer question, `q<question>.<option>`: the answer is the ticked options' ids.
      const ticked = name.match(/^q(\d{1,12})\.([A-Za-z0-9_-]{1,16})$/);
      if (ticked) answers[ticked[1]] = answers[ticked[1]] ? `${answers[ticked[1]]},${ticked[2]}` : ticked[2];
    }
    try {
      await submitAttempt(app.db, app.receipts, session.caller.userId, request.params.id, answers, app.clock());
    } catch (err) {
      // Sent twice, or after the time limit: the attempt's page says how it ended.
      if (!(err instanceof ConflictError)) throw err;
    }
    return seeOther(reply, `/learn/quiz-attempts/${request.params.id}`);
  });
};

export default quizPages;
