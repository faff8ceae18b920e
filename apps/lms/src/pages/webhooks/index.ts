import { HtmlPage, LearningIdParams, RedirectResponse } from '@lms/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { replay } from '../../domain/partner-events/delivery.js';
import * as endpoints from '../../domain/partner-events/endpoints.js';
import { PARTNER_EVENT_TYPES } from '../../domain/partner-events/enqueue.js';
import { ForbiddenError, NotFoundError } from '../../errors.js';
import { type PageContext, pageContext } from '../i18n/index.js';
import { sendPage } from '../send.js';
import { pageSession } from '../session.js';
import { type Html, href, html } from '../view/html.js';
import { page, WEBHOOKS_PATH } from '../view/layout.js';
import { webhooksWords } from './messages.js';
import { formScope, PAGE, seeOther } from '../page-route.js';

// /dashboard/webhooks: partners' event endpoints, for super_admin only (docs/operations.md,
// "Partner events"): the list with each endpoint's state, adding one (its secret shown once),
// rotating, disabling and enabling, replaying since a time, and each endpoint's delivery log with
// the replay of one event. Plain forms (csrf: 'form'), the same domain code as `lms-admin webhook`.

const Loose = z.object({}).passthrough().nullish();
const FlashQuery = z.object({ done: z.unknown().optional() });

async function superAdmin(app: Parameters<FastifyPluginAsyncZod>[0], request: FastifyRequest) {
  const session = await pageSession(app, request);
  if (session.caller.role !== 'super_admin') throw new ForbiddenError(pageContext(app, request).t.enrol.forbidden.notAllowed);
  return session;
}

function flash(ctx: PageContext, done: unknown): Html | false {
  const f = webhooksWords(ctx).flash;
  if (typeof done !== 'string' || !Object.hasOwn(f, done)) return false;
  const bad = done === 'invalid';
  return html`<p class="${bad ? 'error' : 'notice'}" role="${bad ? 'alert' : 'status'}">${f[done as keyof typeof f]}</p>`;
}

const webhooksPage: FastifyPluginAsyncZod = async (app) => {
  formScope(app, 4096);
  const formSchema = (summary: string, params?: z.ZodType) => ({
    config: { auth: true as const, csrf: 'form' as const },
    schema: { ...PAGE, summary, ...(params ? { params } : {}), body: Loose, response: { 200: HtmlPage, 303: RedirectResponse } },
  });

  function listView(ctx: PageContext, rows: Awaited<ReturnType<typeof endpoints.listEndpoints>>, secret?: string): Html {
    const w = webhooksWords(ctx);
    const body = rows.map((r) => {
      const state =
        r.status === 'active'
          ? r.failingSince
            ? w.failing(ctx.f.dateTime(r.failingSince) ?? '')
            : w.active
          : w.disabled(r.disabledReason ?? '');
      const post = (action: string, label: string, extra: Html | string = '') =>
        html`<form method="post" action="${href('/dashboard/webhooks', r.id, action)}" class="inline-reason">${extra}<button type="submit" class="secondary">${label}</button></form>`;
      return html`<tr>
<td data-label="${w.partner}">${r.issuer}</td>
<td data-label="${w.url}"><code class="wrap">${r.url}</code></td>
<td data-label="${w.events}">${r.eventTypes.join(', ')}</td>
<td data-label="${w.state}">${state}</td>
<td data-label="${w.pending}" class="num">${String(r.pending)}</td>
<td data-label="${w.actions}">${post('rotate', w.rotate)}
${r.status === 'active' ? post('disable', w.disable) : post('enable', w.enable)}
${post('replay', w.replay, html`<label for="since-${r.id}">${w.replaySince}</label> <input id="since-${r.id}" name="since" type="datetime-local" required> `)}
<a href="${href('/dashboard/webhooks', r.id)}">${w.log}</a></td>
</tr>
`;
    });
    const checkboxes = PARTNER_EVENT_TYPES.map(
      (type) => html`<label><input type="checkbox" name="event" value="${type}"> ${type}</label> `,
    );
    return html`<h1>${w.title}</h1>
<p>${w.intro}</p>
${secret ? html`<div class="warning" role="status"><p>${w.secretOnce}</p><p><code class="wrap">${secret}</code></p></div>` : ''}
${
  rows.length === 0
    ? html`<p class="muted">${w.none}</p>`
    : html`<div class="table-wrap"><table class="responsive">
<thead><tr><th scope="col">${w.partner}</th><th scope="col">${w.url}</th><th scope="col">${w.events}</th><th scope="col">${w.state}</th><th scope="col" class="num">${w.pending}</th><th scope="col">${w.actions}</th></tr></thead>
<tbody>
${body}</tbody></table></div>`
}
<section aria-labelledby="add-endpoint"><h2 id="add-endpoint">${w.add}</h2>
<form method="post" action="/dashboard/webhooks">
<label for="wh-issuer">${w.issuer}</label> <input id="wh-issuer" name="issuer" required maxlength="253">
<label for="wh-url">${w.url}</label> <input id="wh-url" name="url" type="url" required maxlength="2000">
<fieldset><legend>${w.events}</legend><label><input type="checkbox" name="event" value="all" checked> ${w.allEvents}</label> ${checkboxes}</fieldset>
<button type="submit">${w.addButton}</button>
</form></section>`;
  }

  app.get(
    '/webhooks',
    { config: { auth: true }, schema: { hide: true, tags: ['pages'], querystring: FlashQuery, response: { 200: HtmlPage } } },
    async (request, reply) => {
      const session = await superAdmin(app, request);
      const ctx = pageContext(app, request);
      const rows = await endpoints.listEndpoints(app.db);
      const body = html`${flash(ctx, request.query.done)}${listView(ctx, rows)}`;
      return sendPage(reply, page(ctx, webhooksWords(ctx).title, body, { user: session.user, current: WEBHOOKS_PATH }));
    },
  );

  app.post('/webhooks', formSchema('Add-endpoint form'), async (request, reply) => {
    const session = await superAdmin(app, request);
    const ctx = pageContext(app, request);
    const form = (request.body ?? {}) as Record<string, unknown>;
    const issuer = typeof form.issuer === 'string' ? form.issuer.trim().toLowerCase() : '';
    const url = typeof form.url === 'string' ? form.url.trim() : '';
    // The form body keeps the first value of a repeated name: one chosen type, or `all`.
    const types = typeof form.event === 'string' ? [form.event] : [];
    try {
      if (issuer === '' || url === '' || url.length > 2000) throw new endpoints.EndpointInputError('missing');
      const added = await endpoints.addEndpoint(app.db, { issuer, url, eventTypes: endpoints.eventTypesOf(types) }, app.outboundPolicy);
      const rows = await endpoints.listEndpoints(app.db);
      const body = html`${flash(ctx, 'added')}${listView(ctx, rows, added.secret)}`;
      reply.header('cache-control', 'no-store');
      return sendPage(reply, page(ctx, webhooksWords(ctx).title, body, { user: session.user, current: WEBHOOKS_PATH }));
    } catch (err) {
      if (err instanceof endpoints.EndpointInputError) return seeOther(reply, '/dashboard/webhooks?done=invalid');
      throw err;
    }
  });

  const idOf = (request: FastifyRequest) => (request.params as { id: number }).id;
  for (const [action, done] of [
    ['rotate', 'rotated'],
    ['disable', 'disabled'],
    ['enable', 'enabled'],
  ] as const) {
    app.post(`/webhooks/:id/${action}`, formSchema(`${action} form of the webhooks page`, LearningIdParams), async (request, reply) => {
      const session = await superAdmin(app, request);
      const id = idOf(request);
      const now = app.clock();
      if (action !== 'rotate') {
        const ok = await endpoints.setEndpointStatus(
          app.db,
          app.receipts.deliveries,
          id,
          action === 'enable',
          `disabled by ${session.user.name}`,
          now,
        );
        if (!ok) throw new NotFoundError('No such endpoint');
        return seeOther(reply, `/dashboard/webhooks?done=${done}`);
      }
      const secret = await endpoints.rotateSecret(app.db, id, 24 * 3_600_000, now);
      if (!secret) throw new NotFoundError('No such endpoint');
      // The new secret is shown once, on this answer only.
      const ctx = pageContext(app, request);
      reply.header('cache-control', 'no-store');
      const body = html`${flash(ctx, done)}${listView(ctx, await endpoints.listEndpoints(app.db), secret)}`;
      return sendPage(reply, page(ctx, webhooksWords(ctx).title, body, { user: session.user, current: WEBHOOKS_PATH }));
    });
  }

  app.post('/webhooks/:id/replay', formSchema('Replay-since form of the webhooks page', LearningIdParams), async (request, reply) => {
    await superAdmin(app, request);
    const form = (request.body ?? {}) as Record<string, unknown>;
    const event = typeof form.event === 'string' ? form.event : undefined;
    if (event !== undefined) {
      if (!/^msg_[0-9a-f]{32}$/.test(event)) return seeOther(reply, '/dashboard/webhooks?done=invalid');
      await replay(app.db, app.receipts.deliveries, { eventId: event }, app.clock());
      return seeOther(reply, `${href('/dashboard/webhooks', idOf(request))}?done=replayed`);
    }
    // datetime-local is the page's time zone's wall time; read as UTC when it carries no zone.
    const since = typeof form.since === 'string' ? new Date(/[zZ]|[+-]\d\d:\d\d$/.test(form.since) ? form.since : `${form.since}Z`) : null;
    if (!since || Number.isNaN(since.getTime())) return seeOther(reply, '/dashboard/webhooks?done=invalid');
    await replay(app.db, app.receipts.deliveries, { endpointId: idOf(request), since }, app.clock());
    return seeOther(reply, '/dashboard/webhooks?done=replayed');
  });

  app.get(
    '/webhooks/:id',
    {
      config: { auth: true },
      schema: { hide: true, tags: ['pages'], params: LearningIdParams, querystring: FlashQuery, response: { 200: HtmlPage } },
    },
    async (request, reply) => {
      const session = await superAdmin(app, request);
      const ctx = pageContext(app, request);
      const w = webhooksWords(ctx);
      const id = idOf(request);
      if (!(await endpoints.listEndpoints(app.db)).some((r) => r.id === id)) throw new NotFoundError('No such endpoint');
      const rows = await endpoints.deliveryLog(app.db, id, 200);
      const table =
        rows.length === 0
          ? html`<p class="muted">${w.noAttempts}</p>`
          : html`<div class="table-wrap"><table class="responsive">
<thead><tr><th scope="col">${w.time}</th><th scope="col">${w.event}</th><th scope="col">${w.result}</th><th scope="col" class="num">${w.status}</th><th scope="col" class="num">${w.latency}</th><th scope="col">${w.answer}</th><th scope="col">${w.actions}</th></tr></thead>
<tbody>
${rows.map(
  (r) => html`<tr>
<td data-label="${w.time}">${ctx.f.dateTime(r.attemptedAt)}</td>
<td data-label="${w.event}">${r.type}<br><code class="wrap">${r.eventId}</code></td>
<td data-label="${w.result}">${r.result}</td>
<td data-label="${w.status}" class="num">${r.statusCode === null ? '—' : String(r.statusCode)}</td>
<td data-label="${w.latency}" class="num">${String(r.latencyMs)}</td>
<td data-label="${w.answer}"><code class="wrap">${(r.excerpt ?? '').slice(0, 200)}</code></td>
<td data-label="${w.actions}"><form method="post" action="${href('/dashboard/webhooks', id, 'replay')}"><input type="hidden" name="event" value="${r.eventId}"><button type="submit" class="secondary">${w.replay}</button></form></td>
</tr>
`,
)}</tbody></table></div>`;
      const body = html`<h1>${w.logTitle(id)}</h1>${flash(ctx, request.query.done)}${table}<p><a href="/dashboard/webhooks">${w.back}</a></p>`;
      return sendPage(reply, page(ctx, w.logTitle(id), body, { user: session.user, current: WEBHOOKS_PATH }));
    },
  );
};

export default webhooksPage;
