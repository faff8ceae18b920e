import { API_KEY_SHOWN_ONCE_WARNING, HtmlPage, RedirectResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { listApiKeys } from '../domain/api-keys.js';
import { ForbiddenError } from '../errors.js';
import { DASHBOARD_SCRIPT_PATH } from './assets.js';
import { sendPage } from './send.js';
import { pageSession } from './session.js';
import { formatDate } from './view/format.js';
import { attr, html } from './view/html.js';
import { page } from './view/layout.js';

/**
 * GET /dashboard/api-keys: the teacher's "Kunci API" section. The list is rendered here; creating
 * and revoking go through the JSON API from the page's script (client/dashboard.ts), with the
 * `x-requested-with` header the CSRF plugin requires of session callers.
 */
const apiKeysPage: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api-keys',
    {
      config: { auth: true },
      schema: {
        hide: true,
        tags: ['pages'],
        summary: "The teacher's API keys: create (shown once), list, revoke",
        response: { 200: HtmlPage, 302: RedirectResponse },
      },
    },
    async (request, reply) => {
      const session = await pageSession(app, request);
      // The same rule as the JSON API: keys belong to teachers.
      if (session.caller.role !== 'teacher') throw new ForbiddenError('API keys are for teacher accounts.');
      const keys = await listApiKeys(app.db, session.caller.userId);
      const rows = keys.map(
        (k) => html`<tr data-key-id="${k.id}">
<td data-label="Name">${k.name}</td>
<td data-label="Prefix"><code>${k.prefix}…</code></td>
<td data-label="Created">${formatDate(k.createdAt)}</td>
<td data-label="Last used">${k.lastUsedAt ? formatDate(k.lastUsedAt) : 'Never'}</td>
<td data-label="State" class="key-state">${
          k.revokedAt
            ? html`<span class="badge revoked">Revoked ${formatDate(k.revokedAt)}</span>`
            : html`<button type="button" class="danger" data-revoke="${k.id}" data-name="${k.name}">Revoke<span class="sr-only"> ${k.name}</span></button>`
        }</td>
</tr>
`,
      );
      const body = html`<h1>Kunci API</h1>
<p>API keys let your own systems read the catalog (<code>GET /api/courses</code>) and the progress metrics. Send the key in the <code>x-api-key</code> header. Treat a key like a password.</p>
<section aria-labelledby="create-title" class="card">
<h2 id="create-title">Create a key</h2>
<form id="create-key" class="stack filters">
<label>Name <input name="name" id="key-name" required maxlength="100" autocomplete="off" placeholder="e.g. Website integration"></label>
<button type="submit">Create key</button>
</form>
<div id="new-key" class="warning" role="status" hidden>
<p><strong>Your new key <span id="new-key-name"></span>:</strong></p>
<code class="key" id="new-key-value"></code>
<p><button type="button" class="secondary" id="copy-key">Copy key</button> <span id="copy-status" aria-live="polite"></span></p>
<p>${API_KEY_SHOWN_ONCE_WARNING}</p>
</div>
<p id="key-error" class="error" role="alert" hidden></p>
</section>
<section aria-labelledby="list-title">
<h2 id="list-title">Your keys</h2>
<div class="table-wrap"><table id="key-table" class="responsive">
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th></tr></thead>
<tbody>
${rows}</tbody>
</table></div>
<p id="no-keys" class="muted"${attr('hidden', keys.length > 0)}>You have no API keys yet.</p>
</section>`;
      return sendPage(reply, page('Kunci API', body, { user: session.user, current: '/dashboard/api-keys', script: DASHBOARD_SCRIPT_PATH }));
    },
  );
};

export default apiKeysPage;
