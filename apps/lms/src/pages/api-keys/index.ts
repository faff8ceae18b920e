import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { listApiKeys } from '../../domain/api-keys.js';
import { ForbiddenError } from '../../errors.js';
import { DASHBOARD_SCRIPT_PATH } from '../assets.js';
import type { ApiKeysScriptData } from '../client/api-keys-page.js';
import { fill } from '../i18n/index.js';
import { sendPage } from '../send.js';
import { attr, html } from '../view/html.js';
import { page } from '../view/layout.js';
import { pageOptions, signedIn } from '../page-route.js';

/**
 * GET /dashboard/api-keys: the teacher's "Kunci API" section. The list is rendered here; creating
 * and revoking go through the JSON API from the page's script (client/dashboard.ts), with the
 * `x-requested-with` header the CSRF plugin requires of session callers.
 */
const apiKeysPage: FastifyPluginAsyncZod = async (app) => {
  app.get('/api-keys', pageOptions({ summary: "The teacher's API keys: create (shown once), list, revoke" }), async (request, reply) => {
    const { session, ctx } = await signedIn(app, request);
    const { t, f } = ctx;
    const m = t.apiKeys;
    // The same rule as the JSON API: keys belong to teachers.
    if (session.caller.role !== 'teacher') throw new ForbiddenError(m.teachersOnly);
    const keys = await listApiKeys(app.db, session.caller.userId);
    const rows = keys.map(
      (k) => html`<tr data-key-id="${k.id}">
<td data-label="${m.column.name}">${k.name}</td>
<td data-label="${m.column.prefix}"><code>${k.prefix}…</code></td>
<td data-label="${m.column.created}">${f.dateTime(k.createdAt)}</td>
<td data-label="${m.column.lastUsed}">${f.dateTime(k.lastUsedAt) ?? m.script.never}</td>
<td data-label="${m.column.state}" class="key-state">${
        k.revokedAt
          ? // biome-ignore lint/style/noNonNullAssertion: dateTime() is null only for a null date, and revokedAt is set here.
            html`<span class="badge revoked">${fill(m.script.revoked, { date: f.dateTime(k.revokedAt)! })}</span>`
          : html`<button type="button" class="danger" data-revoke="${k.id}" data-name="${k.name}">${m.script.revoke}<span class="sr-only"> ${k.name}</span></button>`
      }</td>
</tr>
`,
    );
    // What the script needs to speak the page's language: its texts and how dates are written.
    const scriptData: ApiKeysScriptData = {
      locale: ctx.tag,
      dateTimeOptions: f.dateTimeOptions,
      zoneName: f.zoneName,
      messages: m.script,
    };
    const body = html`<h1>${m.title}</h1>
<p>${m.intro}</p>
<section aria-labelledby="create-title" class="card">
<h2 id="create-title">${m.create}</h2>
<form id="create-key" class="stack filters" data-script="${JSON.stringify(scriptData)}">
<label>${m.name} <input name="name" id="key-name" required maxlength="100" autocomplete="off" placeholder="${m.namePlaceholder}"></label>
<button type="submit">${m.submit}</button>
</form>
<div id="new-key" class="warning" role="status" hidden>
<p><strong>${m.newKey}</strong></p>
<code class="key" id="new-key-value"></code>
<p><button type="button" class="secondary" id="copy-key">${m.copy}</button> <span id="copy-status" aria-live="polite"></span></p>
<p>${m.shownOnce}</p>
</div>
<p id="key-error" class="error" role="alert" hidden></p>
</section>
<section aria-labelledby="list-title">
<h2 id="list-title">${m.yourKeys}</h2>
<div class="table-wrap"><table id="key-table" class="responsive">
<thead><tr><th scope="col">${m.column.name}</th><th scope="col">${m.column.prefix}</th><th scope="col">${m.column.created}</th><th scope="col">${m.column.lastUsed}</th><th scope="col">${m.column.state}</th></tr></thead>
<tbody>
${rows}</tbody>
</table></div>
<p id="no-keys" class="muted"${attr('hidden', keys.length > 0)}>${m.none}</p>
</section>`;
    return sendPage(reply, page(ctx, m.title, body, { user: session.user, current: '/dashboard/api-keys', script: DASHBOARD_SCRIPT_PATH }));
  });
};

export default apiKeysPage;
