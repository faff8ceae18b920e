import type { FastifyInstance } from 'fastify';
import { listPendingRequests } from '../../domain/learning/enrollment.js';
import type { PageContext } from '../i18n/index.js';
import type { PageSession } from '../session.js';
import { type Html, href, html } from '../view/html.js';
import { decidesTransfers, transfersSection } from './transfers.js';

function flash(ctx: PageContext, query: unknown): Html | false {
  const q = (query ?? {}) as Record<string, unknown>;
  const decided = q.decided;
  const { enrol } = ctx.t;
  const text =
    typeof decided === 'string' && Object.hasOwn(enrol.decided, decided) ? enrol.decided[decided as keyof typeof enrol.decided] : null;
  return text !== null && html`<p class="notice" role="status">${text}</p>`;
}

/**
 * The staff dashboard's work lists: the pending requests to join the courses this person decides
 * (a teacher their own, an admin their institution's, a super_admin all), and for admins the
 * bank transfers waiting for their confirmation (./transfers.ts), each with its buttons (plain
 * forms, ./forms.ts).
 */
export async function staffLearningSections(app: FastifyInstance, ctx: PageContext, session: PageSession, query: unknown): Promise<Html> {
  const { t, f } = ctx;
  const caller = session.caller;
  const [requests, transfers] = await Promise.all([
    listPendingRequests(app.db, caller, 50),
    decidesTransfers(session) ? transfersSection(app, ctx, session) : Promise.resolve(false as const),
  ]);
  const r = t.enrol.requests;
  const requestRows = requests.map(
    (q) => html`<tr>
<td data-label="${r.learner}">${q.userName}<br><span class="muted">${q.userEmail}</span></td>
<td data-label="${r.course}"><a href="${href('/dashboard/courses', q.courseId)}">${q.courseName}</a></td>
<td data-label="${r.requested}">${f.dateTime(q.requestedAt)}</td>
<td data-label="${r.actions}"><form method="post" action="${href('/dashboard/enrollment-requests', q.id, 'approve')}"><button type="submit" aria-label="${r.approveLabel(q.userName, q.courseName)}">${r.approve}</button></form>
<form method="post" action="${href('/dashboard/enrollment-requests', q.id, 'reject')}"><button type="submit" aria-label="${r.rejectLabel(q.userName, q.courseName)}">${r.reject}</button></form></td>
</tr>
`,
  );
  const requestSection = html`<section aria-labelledby="requests">
<h2 id="requests">${r.heading}</h2>
${
  requests.length === 0
    ? html`<p class="muted">${r.none}</p>`
    : html`<div class="table-wrap"><table class="responsive">
<thead><tr><th scope="col">${r.learner}</th><th scope="col">${r.course}</th><th scope="col">${r.requested}</th><th scope="col">${r.actions}</th></tr></thead>
<tbody>
${requestRows}</tbody>
</table></div>`
}
</section>`;
  return html`${flash(ctx, query)}${requestSection}${transfers}`;
}
