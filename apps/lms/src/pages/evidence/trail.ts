import { MAX_ID } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  assertAuditsCourse,
  correctEvidence,
  evidenceTrail,
  MAX_CORRECTION_MINUTES,
  MAX_CORRECTION_REASON,
} from '../../domain/evidence/trail.js';
import { findUserProfile } from '../../domain/user-profile.js';
import { sendPage } from '../send.js';
import { pageSession } from '../session.js';
import { href, html } from '../view/html.js';
import { page } from '../view/layout.js';
import { formOptions, formScope, PAGE, pageOptions, seeOther, signedIn } from '../page-route.js';

// A learner's evidence trail in a course, for an admin of its institution or a super_admin: the
// page (with the correction form) and the same as JSON; a correction is a form post that records
// an entry of its own with its reason (domain/evidence/trail.ts).

const TrailParams = z.object({
  id: z.coerce.number().int().min(1).max(MAX_ID),
  userId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
});
/** Loose: a wrong field is said on the page (`?corrected=invalid`), not a 400. */
const CorrectionForm = z.object({}).passthrough().nullish();
export const CorrectionFields = z
  .object({
    evaluationDone: z.enum(['on', 'true']).optional(),
    addMinutes: z.coerce.number().int().min(0).max(MAX_CORRECTION_MINUTES).default(0),
    reason: z.string().trim().min(1).max(MAX_CORRECTION_REASON),
  })
  .refine((f) => f.evaluationDone !== undefined || f.addMinutes > 0, 'A correction changes something');

const trailPages: FastifyPluginAsyncZod = async (app) => {
  formScope(app, 4096);
  const trailUrl = (courseId: number, userId: string) => href('/dashboard/courses', courseId, 'learners', userId, 'evidence');

  app.get('/courses/:id/learners/:userId/evidence', pageOptions({ params: TrailParams }), async (request, reply) => {
    const { session, ctx } = await signedIn(app, request);
    const { t, f } = ctx;
    const e = t.reports;
    const { id: courseId, userId } = request.params;
    await assertAuditsCourse(app.db, session.caller, courseId);
    const [trail, learner] = await Promise.all([evidenceTrail(app.db, userId, courseId), findUserProfile(app.db, userId)]);
    const name = learner?.name ?? userId;
    const flashValue = (request.query as Record<string, unknown> | undefined)?.corrected;
    const flash =
      flashValue === 'saved'
        ? html`<p class="success" role="status">${e.corrected}</p>`
        : flashValue === 'invalid' && html`<p class="error" role="alert">${e.invalid}</p>`;
    const list =
      trail.length === 0
        ? html`<p class="muted">${e.noTrail}</p>`
        : html`<div class="table-wrap"><table class="responsive"><thead><tr><th scope="col">${e.when}</th><th scope="col">${e.kind}</th><th scope="col">${e.detail}</th><th scope="col">${e.session}</th><th scope="col">${e.by}</th><th scope="col">${e.reason}</th></tr></thead>
<tbody>${trail.map(
            (r) =>
              html`<tr><td data-label="${e.when}">${f.dateTime(r.at) ?? ''}</td><td data-label="${e.kind}">${e.kinds[r.kind]}</td><td data-label="${e.detail}"><code>${JSON.stringify(r.detail)}</code></td><td data-label="${e.session}">${r.session ?? '—'}</td><td data-label="${e.by}">${r.actorName ?? '—'}</td><td data-label="${e.reason}">${r.reason ?? ''}</td></tr>`,
          )}</tbody></table></div>`;
    const body = html`<p><a href="${href('/dashboard/courses', courseId, 'learners', userId)}">${name}</a></p>
<h1>${e.trailTitle(name)}</h1>
${flash}
<p><a href="${href('/dashboard/courses', courseId, 'learners', userId, 'evidence.json')}">JSON</a></p>
${list}
<section aria-labelledby="correct" id="correct"><h2 id="correct-title">${e.correctTitle}</h2>
<p class="muted">${e.correctNote}</p>
<form method="post" action="${href('/dashboard/courses', courseId, 'learners', userId, 'evidence', 'corrections')}" class="card">
<label><input type="checkbox" name="evaluationDone" value="on"> ${e.correctEvaluation}</label>
<label>${e.correctMinutes} <input type="number" name="addMinutes" min="0" max="${MAX_CORRECTION_MINUTES}" value="0"></label>
<label>${e.correctReason} <textarea name="reason" required maxlength="${MAX_CORRECTION_REASON}"></textarea></label>
<button type="submit">${e.correctSubmit}</button>
</form></section>`;
    return sendPage(reply, page(ctx, e.trailTitle(name), body, { user: session.user, current: '/dashboard' }));
  });

  app.get(
    '/courses/:id/learners/:userId/evidence.json',
    { config: { auth: true }, schema: { ...PAGE, params: TrailParams } },
    async (request, reply) => {
      const session = await pageSession(app, request);
      const { id: courseId, userId } = request.params;
      await assertAuditsCourse(app.db, session.caller, courseId);
      const trail = await evidenceTrail(app.db, userId, courseId);
      return reply.header('cache-control', 'no-store').send({ success: true, courseId, userId, entries: trail });
    },
  );

  app.post(
    '/courses/:id/learners/:userId/evidence/corrections',
    formOptions({ params: TrailParams, body: CorrectionForm }),
    async (request, reply) => {
      const session = await pageSession(app, request);
      const { id: courseId, userId } = request.params;
      const back = `${trailUrl(courseId, userId)}`;
      // Who may correct is decided before the form is read.
      await assertAuditsCourse(app.db, session.caller, courseId);
      const fields = CorrectionFields.safeParse(request.body ?? {});
      if (!fields.success) return seeOther(reply, `${back}?corrected=invalid#correct`);
      await correctEvidence(
        app.db,
        session.caller.userId,
        userId,
        courseId,
        { evaluationDone: fields.data.evaluationDone !== undefined, addMinutes: fields.data.addMinutes, reason: fields.data.reason },
        app.clock(),
      );
      return seeOther(reply, `${back}?corrected=saved`);
    },
  );
};

export default trailPages;
