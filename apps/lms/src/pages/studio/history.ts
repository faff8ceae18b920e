import { AUTHORING_OPERATIONS as op } from '../../domain/authoring/index.js';
import { href, html } from '../view/html.js';
import { changeWords, outlinePlaces } from './change-words.js';
import { type App, getPage } from './screen.js';

// The course's history (/dashboard/studio/courses/:id/history): every write, newest first, 50 a
// page (the courseHistory operation), each with when, who and what it changed, in words
// (./change-words.ts: chapters and modules by their number in the outline now).

export default function historyScreen(app: App) {
  return [
    getPage('/studio/courses/:id/history', 'Course studio: history', async ({ ctx, actx, id, query, show }) => {
      const { course, document } = await op.exportCourse(app.db, actx, id);
      const places = outlinePlaces(document);
      const words = ctx.t.studioWords.history;
      const before = Number(query.before);
      const history = await op.courseHistory(app.db, actx, course.id, {
        limit: 50,
        ...(Number.isSafeInteger(before) && before > 0 ? { before } : {}),
      });
      const h = ctx.t.studio.history;
      const whatChanged = (action: string, changes: { path: string; from?: unknown; to?: unknown }[]) => {
        const said = [...new Set(changes.map((c) => changeWords(ctx, c, places)))];
        const shown = said.slice(0, 5);
        if (said.length > shown.length) shown.push(words.more(said.length - shown.length));
        return html`<strong>${words.actions[action] ?? words.otherAction}</strong>${shown.length > 0 && html`: ${ctx.f.list(shown)}`}`;
      };
      const rows = history.events.map(
        (e) => html`<tr><td data-label="${h.when}">${ctx.f.dateTime(e.at)}</td>
<td data-label="${h.who}">${e.actor.name ?? e.actor.partnerIssuer ?? '—'}</td>
<td data-label="${h.what}">${whatChanged(e.action, e.changes as { path: string }[])}</td></tr>`,
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
