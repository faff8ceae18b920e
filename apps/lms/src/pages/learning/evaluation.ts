import { LearningCourseIdParams } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  evaluationState,
  evaluationSummary,
  MAX_EVALUATION_COMMENT,
  MIN_RESPONSES_SHOWN,
  submitEvaluation,
} from '../../domain/evidence/evaluation.js';
import { ConflictError, UnprocessableError } from '../../errors.js';
import { sendPage } from '../send.js';
import { pageSession } from '../session.js';
import { href, html } from '../view/html.js';
import { page } from '../view/layout.js';
import { learnScope } from './learn-scope.js';
import { formOptions, pageOptions, seeOther, signedIn } from '../page-route.js';

const FormFlash = z.object({ invalid: z.string().optional() }).passthrough();
/** Loose: the answers are checked against the course's items (a wrong one: the form again, saying so). */
const EvaluationForm = z.object({}).passthrough().nullish();

/**
 * The evaluation form (/learn/courses/:id/evaluation: a Likert 1-5 radio group per item and a
 * comment) and the managers' summary (/learn/courses/:id/evaluation/summary): averages, counts
 * and, from MIN_RESPONSES_SHOWN responses on, the comments; never who wrote what.
 */
const evaluationPages: FastifyPluginAsyncZod = async (app) => {
  learnScope(app);

  app.get('/courses/:id/evaluation', pageOptions({ params: LearningCourseIdParams, querystring: FormFlash }), async (request, reply) => {
    const { session, ctx } = await signedIn(app, request);
    const e = ctx.t.evidence;
    const id = request.params.id;
    const state = await evaluationState(app.db, session.caller.userId, id, app.clock());
    const items = state.items.map(
      (item, i) => html`<fieldset class="likert"><legend id="item-${i}">${ctx.locale === 'id' ? item.id : item.en}</legend>
${[1, 2, 3, 4, 5].map(
  (n) => html`<label><input type="radio" name="${`answer.${item.key}`}" value="${n}" required> ${n} · ${e.scale[n - 1]}</label> `,
)}</fieldset>`,
    );
    const form = html`<form method="post" action="${href('/learn/courses', id, 'evaluation')}" class="evaluation">
${items}
<label for="comment">${e.comment(MAX_EVALUATION_COMMENT)}</label>
<textarea id="comment" name="comment" maxlength="${MAX_EVALUATION_COMMENT}" rows="5"></textarea>
<p><button type="submit">${e.submit}</button></p>
</form>`;
    const body = html`<p><a href="${href('/dashboard/courses', id)}">${e.backToCourse}</a></p>
<h1>${e.evaluationTitle(state.courseName)}</h1>
${request.query.invalid !== undefined && html`<p class="error" role="alert">${e.invalid}</p>`}
${state.done ? html`<p class="success">${e.done}</p>` : state.open ? html`<p>${e.intro}</p>${form}` : html`<p class="notice">${e.notYet}</p>`}`;
    return sendPage(reply, page(ctx, e.evaluationTitle(state.courseName), body, { user: session.user, current: '/dashboard' }));
  });

  app.post('/courses/:id/evaluation', formOptions({ params: LearningCourseIdParams, body: EvaluationForm }), async (request, reply) => {
    const session = await pageSession(app, request);
    const id = request.params.id;
    const fields = (request.body ?? {}) as Record<string, unknown>;
    const answers: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(fields)) if (name.startsWith('answer.')) answers[name.slice('answer.'.length)] = value;
    try {
      await submitEvaluation(
        app.db,
        app.receipts,
        session.caller.userId,
        id,
        { answers, comment: fields.comment ?? '' },
        app.clock(),
        session.caller.sessionTokenHash,
      );
    } catch (err) {
      if (err instanceof UnprocessableError) return seeOther(reply, `/learn/courses/${id}/evaluation?invalid=1`);
      if (err instanceof ConflictError) return seeOther(reply, `/learn/courses/${id}/evaluation`);
      throw err;
    }
    // Back to the course, which now shows the certificate or what it still waits for.
    return seeOther(reply, `/dashboard/courses/${id}`);
  });

  app.get('/courses/:id/evaluation/summary', pageOptions({ params: LearningCourseIdParams }), async (request, reply) => {
    const { session, ctx } = await signedIn(app, request);
    const { f } = ctx;
    const e = ctx.t.evidence;
    const s = await evaluationSummary(app.db, session.caller, request.params.id, app.clock());
    const rows = s.items.map(
      (item) =>
        html`<tr><td>${ctx.locale === 'id' ? item.id : item.en}</td><td class="num">${item.average === null ? '—' : f.number(item.average)}</td><td>${item.counts === null ? '—' : item.counts.join(' · ')}</td></tr>`,
    );
    const comments =
      s.comments === null
        ? html`<p class="muted">${e.fewResponses(MIN_RESPONSES_SHOWN)}</p>`
        : s.comments.length === 0
          ? html`<p class="muted">${e.noComments}</p>`
          : html`<ul class="comments">${s.comments.map((c) => html`<li>${c}</li>`)}</ul>`;
    const body = html`<p><a href="${href('/dashboard/courses', s.courseId)}">${e.backToCourse}</a></p>
<h1>${e.summaryTitle(s.courseName)}</h1>
<p>${e.responses(s.responses)}. ${e.anonymous}</p>
<div class="table-wrap"><table><thead><tr><th scope="col">${e.item}</th><th scope="col" class="num">${e.average}</th><th scope="col">${e.counts}</th></tr></thead>
<tbody>${rows}</tbody></table></div>
<section aria-labelledby="comments"><h2 id="comments">${e.comments}</h2>${comments}</section>`;
    return sendPage(reply, page(ctx, e.summaryTitle(s.courseName), body, { user: session.user, current: '/dashboard/catalog' }));
  });
};

export default evaluationPages;
