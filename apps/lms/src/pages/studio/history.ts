import { AUTHORING_OPERATIONS as op } from '../../domain/authoring/index.js';
import { href, html, join } from '../view/html.js';
import { type App, courseOf, getPage } from './screen.js';

// The course's history (/dashboard/studio/courses/:id/history): every write, newest first, 50 a
// page (the courseHistory operation), each with when, who and the paths it changed.

export default function historyScreen(app: App) {
  return [
    getPage('/studio/courses/:id/history', 'Course studio: history', async ({ ctx, actx, id, query, show }) => {
      const course = await courseOf(app, actx, id);
      const before = Number(query.before);
      const history = await op.courseHistory(app.db, actx, course.id, {
        limit: 50,
        ...(Number.isSafeInteger(before) && before > 0 ? { before } : {}),
      });
      const h = ctx.t.studio.history;
      const rows = history.events.map(
        (e) => html`<tr><td data-label="${h.when}">${ctx.f.dateTime(e.at)}</td>
<td data-label="${h.who}">${e.actor.name ?? e.actor.partnerIssuer ?? '—'}</td>
<td data-label="${h.what}"><code>${e.action}</code> ${join(
          (e.changes as { path: string }[]).slice(0, 5).map((c) => html`<code>${c.path}</code>`),
          ', ',
        )}</td></tr>`,
      );
      const body =
        history.events.length === 0
          ? html`<p class="muted">${h.none}</p>`
          : html`<div class="table-wrap"><table class="responsive"><thead><tr><th scope="col">${h.when}</th><th scope="col">${h.who}</th><th scope="col">${h.what}</th></tr></thead><tbody>${rows}</tbody></table></div>
${history.nextBefore !== null && html`<p><a href="${href('/dashboard/studio/courses', course.id, 'history').withQuery({ before: history.nextBefore })}">${h.older}</a></p>`}`;
      return show(course, 'history', h.title, html`<h2>${h.title}</h2>${body}`);
    }),
  ];
}
