import { HtmlPage, LearningIdParams, RedirectResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { keepsInstitution, readInstitutionSettings } from '../../domain/institutions/transfer-account.js';
import { NotFoundError } from '../../errors.js';
import { NOTIFICATION_KINDS, type NotificationKind, RECEIPT_KINDS } from '../../notifications/contract.js';
import {
  deliveryLog,
  logSubject,
  readInstitutionNotificationSettings,
  writeInstitutionNotificationSettings,
} from '../../notifications/settings.js';
import type { PageContext } from '../i18n/index.js';
import { formScope, PAGE, seeOther } from '../page-route.js';
import { sendPage } from '../send.js';
import { attr, type Html, href, html } from '../view/html.js';
import { INSTITUTION_PATH, page } from '../view/layout.js';
import { keeper } from '../institution/index.js';

// The staff's side of notifications (docs/operations.md, "Notifications"): a person's delivery log (what was
// sent, when, on which channel, with what result and why) and an institution's settings (kinds
// switched off for all its members, the e-mails' from-address). Who: an admin for the people and
// the institution they belong to, a super_admin for any; everyone else is refused before any
// lookup, and a person of another institution is "not found" (their existence is not told).

const LogQuery = z.object({ user: z.string().min(1).max(100) });
const Loose = z.object({}).passthrough().nullish();
const Flash = z.object({ done: z.string().max(20).optional() });
const ADDRESS =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

function settingsView(
  ctx: PageContext,
  id: number,
  name: string,
  kindsOff: readonly NotificationKind[],
  from: string,
  problem: string | null,
  notice: Html | false,
): Html {
  const w = ctx.t.notifications;
  const choices = NOTIFICATION_KINDS.filter((k) => !RECEIPT_KINDS.has(k)).map(
    (kind) =>
      html`<li><label><input type="checkbox" name="off:${kind}" value="1"${attr('checked', kindsOff.includes(kind))}> ${w.kinds[kind]}</label></li>`,
  );
  return html`<h1>${w.institutionTitle(name)}</h1>
${notice}
<p>${w.institutionIntro}</p>
<form method="post" action="${href('/dashboard/institutions', id, 'notifications')}">
<fieldset><legend>${w.kindsOff}</legend><ul>${choices}</ul></fieldset>
<p><label for="fromAddress">${w.fromAddress}</label>
<input id="fromAddress" name="fromAddress" type="email" value="${from}"${attr('aria-invalid', problem ? 'true' : null)}>
${problem && html`<span class="field-error">${problem}</span>`}</p>
<button type="submit">${w.save}</button>
</form>`;
}

const notificationAdminPages: FastifyPluginAsyncZod = async (app) => {
  formScope(app, 8192);

  app.get(
    '/institution/notifications',
    { config: { auth: true }, schema: { ...PAGE, querystring: LogQuery, response: { 200: HtmlPage, 302: RedirectResponse } } },
    async (request, reply) => {
      const { session, ctx, person } = await keeper(app, request);
      const who = await logSubject(app.db, request.query.user);
      // An admin sees the people of their institution only; anyone else is "not found" to them.
      if (!who || (person.role !== 'super_admin' && (who.institutionId === null || !keepsInstitution(person, who.institutionId)))) {
        throw new NotFoundError('Person not found');
      }
      const w = ctx.t.notifications;
      const entries = await deliveryLog(app.db, who.id);
      const rows = entries.map(
        (e) => html`<tr><td>${ctx.f.dateTime(e.createdAt)}</td><td>${(w.kinds as Record<string, string>)[e.kind] ?? e.kind}</td>
<td>${e.channel === 'whatsapp' ? w.whatsapp : w.email}</td><td>${(w.state as Record<string, string>)[e.state] ?? e.state}${e.sentAt ? html` (${ctx.f.dateTime(e.sentAt)})` : ''}</td>
<td>${e.attempts}</td><td>${e.reason ?? ''}</td></tr>`,
      );
      const c = w.column;
      const body = html`<h1>${w.logTitle(who.name)}</h1>
${
  entries.length === 0
    ? html`<p class="muted">${w.logEmpty}</p>`
    : html`<table><thead><tr><th scope="col">${c.when}</th><th scope="col">${c.what}</th><th scope="col">${c.channel}</th><th scope="col">${c.result}</th><th scope="col">${c.attempts}</th><th scope="col">${c.reason}</th></tr></thead>
<tbody>${rows}</tbody></table>`
}`;
      return sendPage(reply, page(ctx, w.logTitle(who.name), body, { user: session.user, current: INSTITUTION_PATH }));
    },
  );

  app.get(
    '/institutions/:id/notifications',
    {
      config: { auth: true },
      schema: { ...PAGE, params: LearningIdParams, querystring: Flash, response: { 200: HtmlPage, 302: RedirectResponse } },
    },
    async (request, reply) => {
      const { session, ctx, person } = await keeper(app, request);
      const institution = await readInstitutionSettings(app.db, person, request.params.id);
      const s = await readInstitutionNotificationSettings(app.db, institution.id);
      const notice = request.query.done === 'saved' && html`<p class="notice" role="status">${ctx.t.notifications.saved}</p>`;
      const body = settingsView(ctx, institution.id, institution.name, s.disabledKinds, s.fromAddress ?? '', null, notice);
      return sendPage(
        reply,
        page(ctx, ctx.t.notifications.institutionTitle(institution.name), body, { user: session.user, current: INSTITUTION_PATH }),
      );
    },
  );

  app.post(
    '/institutions/:id/notifications',
    {
      config: { auth: true, csrf: 'form' },
      schema: { ...PAGE, params: LearningIdParams, body: Loose, response: { 303: RedirectResponse, 422: HtmlPage } },
    },
    async (request, reply) => {
      const { session, ctx, person } = await keeper(app, request);
      const institution = await readInstitutionSettings(app.db, person, request.params.id);
      const form = (request.body ?? {}) as Record<string, unknown>;
      const kindsOff = NOTIFICATION_KINDS.filter((k) => !RECEIPT_KINDS.has(k) && form[`off:${k}`] === '1');
      const from = typeof form.fromAddress === 'string' ? form.fromAddress.trim().slice(0, 300) : '';
      if (from !== '' && (from.length > 254 || !ADDRESS.test(from))) {
        const w = ctx.t.notifications;
        const notice = html`<div class="error" role="alert"><p>${w.invalid}</p></div>`;
        const body = settingsView(ctx, institution.id, institution.name, kindsOff, from, w.fromProblem, notice);
        return sendPage(
          reply,
          page(ctx, w.institutionTitle(institution.name), body, { user: session.user, current: INSTITUTION_PATH }),
          422,
        );
      }
      await writeInstitutionNotificationSettings(app.db, institution.id, {
        disabledKinds: kindsOff,
        fromAddress: from === '' ? null : from,
      });
      request.log.info(
        { institutionId: institution.id, by: session.caller.userId, kindsOff, fromAddress: from },
        'institution notification settings set',
      );
      return seeOther(reply, `/dashboard/institutions/${institution.id}/notifications?done=saved`);
    },
  );
};

export default notificationAdminPages;
