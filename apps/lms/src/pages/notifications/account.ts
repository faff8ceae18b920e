import { HtmlPage, RedirectResponse } from '@lms/contracts';
import type { Db } from '@lms/db';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  NOTIFICATION_CHANNELS,
  NOTIFICATION_KINDS,
  type NotificationKind,
  type NotificationLocale,
  RECEIPT_KINDS,
} from '../../notifications/contract.js';
import { DIGEST_KINDS, digestKindsFor } from '../../notifications/reminders/digests.js';
import {
  confirmPhone,
  type PersonSettings,
  readPersonSettings,
  sendConfirmationCode,
  setPreference,
  writePersonSettings,
} from '../../notifications/settings.js';
import type { PageContext } from '../i18n/index.js';
import { formScope, PAGE, seeOther, signedIn } from '../page-route.js';
import { sendPage } from '../send.js';
import { attr, type Html, href, html } from '../view/html.js';
import { page } from '../view/layout.js';

// /account/notifications: each person's own notification settings (docs/operations.md, "Notifications"): what
// they are told on which channel (receipts shown, always on), the language and time zone of the
// messages, quiet hours, and a WhatsApp number confirmed by a code sent to it. Plain forms
// (csrf: 'form'); a wrong value is a 422 page naming each field's problem beside it. A digest is
// offered only to the people its scan can reach (digestKindsFor: admins, course owners); a posted
// switch of a kind not offered is ignored, as a receipt's is, and never written.

export const ACCOUNT_NOTIFICATIONS_PATH = '/account/notifications';
const Loose = z.object({}).passthrough().nullish();
const Flash = z.object({ done: z.string().max(40).optional() });

type Field = 'locale' | 'timeZone' | 'quietStart' | 'quietEnd' | 'phone';
type Problems = Partial<Record<Field, string>>;
type Values = Record<Field, string> & { optIn: boolean; on: Set<string> };

const hhmm = (minute: number | null) =>
  minute === null ? '' : `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

function valuesOf(s: PersonSettings): Values {
  const on = new Set<string>();
  for (const kind of NOTIFICATION_KINDS)
    for (const channel of NOTIFICATION_CHANNELS) if (!s.off.has(`${kind} ${channel}`)) on.add(`${kind} ${channel}`);
  return {
    locale: s.locale,
    timeZone: s.timeZone,
    quietStart: hhmm(s.quietStartMinute),
    quietEnd: hhmm(s.quietEndMinute),
    phone: s.whatsappPhone ?? '',
    optIn: s.whatsappOptIn,
    on,
  };
}

const text = (form: Record<string, unknown>, name: string) =>
  typeof form[name] === 'string' ? (form[name] as string).trim().slice(0, 200) : '';

/** Minutes after midnight of `HH:MM`, or null when it is not one. */
function minuteOf(value: string): number | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(value);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

function canonicalZone(zone: string): string | null {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

function field(label: string, name: Field, values: Values, problems: Problems, placeholder: string | null = null, type = 'text'): Html {
  const problem = problems[name];
  return html`<p><label for="${name}">${label}</label>
<input id="${name}" name="${name}" type="${type}" value="${values[name]}"${attr('placeholder', placeholder)}${attr('aria-invalid', problem ? 'true' : null)}${attr('aria-describedby', problem ? `${name}-problem` : null)}>
${problem && html`<span id="${name}-problem" class="field-error">${problem}</span>`}</p>`;
}

/** The kinds the person's page shows: every kind but the digests their scans never send them. */
async function kindsFor(db: Db, userId: string): Promise<NotificationKind[]> {
  const digests = await digestKindsFor(db, userId);
  return NOTIFICATION_KINDS.filter((kind) => !DIGEST_KINDS.has(kind) || digests.has(kind));
}

function view(
  ctx: PageContext,
  kinds: readonly NotificationKind[],
  s: PersonSettings,
  values: Values,
  problems: Problems,
  notice: Html | false,
): Html {
  const w = ctx.t.notifications;
  const rows = kinds.map((kind) => {
    const cells = NOTIFICATION_CHANNELS.map((channel) => {
      const name = `on:${kind}:${channel}`;
      if (RECEIPT_KINDS.has(kind))
        return html`<td><input type="checkbox" checked disabled aria-label="${w.kinds[kind]}, ${w[channel]}"> <span class="muted locked-note">${w.locked}</span></td>`;
      return html`<td><input type="checkbox" name="${name}" value="1"${attr('checked', values.on.has(`${kind} ${channel}`))} aria-label="${w.kinds[kind]}, ${w[channel]}"></td>`;
    });
    return html`<tr><th scope="row">${w.kinds[kind]}</th>${cells}</tr>`;
  });
  const localeOption = (l: NotificationLocale, name: string) =>
    html`<option value="${l}"${attr('selected', values.locale === l)}>${name}</option>`;
  const phoneState = s.whatsappPhone
    ? s.phoneConfirmed
      ? html`<p class="muted">${w.phoneConfirmed}</p>`
      : html`<p class="muted">${w.phoneUnconfirmed}</p>
<form method="post" action="${href('/account/notifications/phone/code')}"><button type="submit" class="secondary">${w.sendCode}</button></form>
<form method="post" action="${href('/account/notifications/phone/confirm')}"><p><label for="code">${w.code}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="6"> <button type="submit">${w.confirm}</button></p></form>`
    : '';
  return html`<h1>${w.title}</h1>
${notice}
<p>${w.intro}</p>
<form method="post" action="${href(ACCOUNT_NOTIFICATIONS_PATH)}">
<table>
<thead><tr><th scope="col">${w.kind}</th><th scope="col">${w.email}</th><th scope="col">${w.whatsapp}</th></tr></thead>
<tbody>${rows}</tbody>
</table>
<p><label for="locale">${w.language}</label>
<select id="locale" name="locale">${localeOption('id', 'Bahasa Indonesia')}${localeOption('en', 'English')}</select>
${problems.locale && html`<span class="field-error">${problems.locale}</span>`}</p>
${field(w.timeZone, 'timeZone', values, problems)}
${field(w.quietStart, 'quietStart', values, problems, '21:00')}
${field(w.quietEnd, 'quietEnd', values, problems, '07:00')}
<p class="muted">${w.quietHelp}</p>
${field(w.phone, 'phone', values, problems, '+6281234567890', 'tel')}
<p><label><input type="checkbox" name="optIn" value="1"${attr('checked', values.optIn)}> ${w.optIn}</label></p>
<button type="submit">${w.save}</button>
</form>
${phoneState}`;
}

function flash(ctx: PageContext, done: string | undefined): Html | false {
  const w = ctx.t.notifications;
  if (done === 'saved') return html`<p class="notice" role="status">${w.saved}</p>`;
  if (done === 'code-sent') return html`<p class="notice" role="status">${w.codeSent}</p>`;
  if (done === 'code-unavailable') return html`<div class="error" role="alert"><p>${w.codeUnavailable}</p></div>`;
  if (done?.startsWith('code-')) {
    const outcome = done.slice(5) as keyof typeof w.codeOutcome;
    if (Object.hasOwn(w.codeOutcome, outcome)) {
      const role = outcome === 'confirmed' ? 'status' : 'alert';
      return html`<p class="${outcome === 'confirmed' ? 'notice' : 'error'}" role="${role}">${w.codeOutcome[outcome]}</p>`;
    }
  }
  return false;
}

const accountNotificationPages: FastifyPluginAsyncZod = async (app) => {
  formScope(app, 16 * 1024);
  const formConfig = { auth: true as const, csrf: 'form' as const };

  app.get(
    '/notifications',
    { config: { auth: true }, schema: { ...PAGE, querystring: Flash, response: { 200: HtmlPage, 302: RedirectResponse } } },
    async (request, reply) => {
      const { session, ctx } = await signedIn(app, request);
      const s = await readPersonSettings(app.db, session.caller.userId);
      const kinds = await kindsFor(app.db, session.caller.userId);
      const body = view(ctx, kinds, s, valuesOf(s), {}, flash(ctx, request.query.done));
      return sendPage(reply, page(ctx, ctx.t.notifications.title, body, { user: session.user }));
    },
  );

  app.post(
    '/notifications',
    { config: formConfig, schema: { ...PAGE, body: Loose, response: { 303: RedirectResponse, 422: HtmlPage } } },
    async (request, reply) => {
      const { session, ctx } = await signedIn(app, request);
      const userId = session.caller.userId;
      const w = ctx.t.notifications;
      const form = (request.body ?? {}) as Record<string, unknown>;
      const kinds = await kindsFor(app.db, userId);
      const values: Values = {
        locale: text(form, 'locale'),
        timeZone: text(form, 'timeZone'),
        quietStart: text(form, 'quietStart'),
        quietEnd: text(form, 'quietEnd'),
        phone: text(form, 'phone').replace(/[\s-]/g, ''),
        optIn: form.optIn === '1',
        on: new Set(
          kinds.flatMap((kind) => NOTIFICATION_CHANNELS.filter((c) => form[`on:${kind}:${c}`] === '1').map((c) => `${kind} ${c}`)),
        ),
      };
      const problems: Problems = {};
      if (values.locale !== 'id' && values.locale !== 'en') problems.locale = w.problem.language;
      const zone = canonicalZone(values.timeZone);
      if (!zone) problems.timeZone = w.problem.timeZone;
      const start = values.quietStart === '' ? null : minuteOf(values.quietStart);
      const end = values.quietEnd === '' ? null : minuteOf(values.quietEnd);
      if (values.quietStart !== '' && start === null) problems.quietStart = w.problem.time;
      if (values.quietEnd !== '' && end === null) problems.quietEnd = w.problem.time;
      if (!problems.quietStart && !problems.quietEnd && (values.quietStart === '') !== (values.quietEnd === '')) {
        problems[values.quietStart === '' ? 'quietStart' : 'quietEnd'] = w.problem.bothTimes;
      }
      if (values.phone !== '' && !/^\+[1-9]\d{7,14}$/.test(values.phone)) problems.phone = w.problem.phone;
      if (Object.keys(problems).length > 0) {
        const s = await readPersonSettings(app.db, userId);
        const notice = html`<div class="error" role="alert"><p>${w.invalid}</p></div>`;
        return sendPage(reply, page(ctx, w.title, view(ctx, kinds, s, values, problems, notice), { user: session.user }), 422);
      }
      await writePersonSettings(app.db, userId, {
        locale: values.locale as NotificationLocale,
        timeZone: zone as string,
        quietStartMinute: start,
        quietEndMinute: end,
        whatsappPhone: values.phone === '' ? null : values.phone,
        whatsappOptIn: values.optIn,
      });
      for (const kind of kinds) {
        if (RECEIPT_KINDS.has(kind)) continue;
        for (const channel of NOTIFICATION_CHANNELS)
          await setPreference(app.db, userId, kind, channel, values.on.has(`${kind} ${channel}`));
      }
      return seeOther(reply, `${ACCOUNT_NOTIFICATIONS_PATH}?done=saved`);
    },
  );

  app.post(
    '/notifications/phone/code',
    { config: formConfig, schema: { ...PAGE, body: Loose, response: { 303: RedirectResponse } } },
    async (request, reply) => {
      const { session } = await signedIn(app, request);
      const sender = app.notificationWhatsApp;
      const sent = sender ? await sendConfirmationCode(app.db, sender, session.caller.userId, app.clock()) : false;
      return seeOther(reply, `${ACCOUNT_NOTIFICATIONS_PATH}?done=${sent ? 'code-sent' : 'code-unavailable'}`);
    },
  );

  app.post(
    '/notifications/phone/confirm',
    { config: formConfig, schema: { ...PAGE, body: Loose, response: { 303: RedirectResponse } } },
    async (request, reply) => {
      const { session } = await signedIn(app, request);
      const code = text((request.body ?? {}) as Record<string, unknown>, 'code');
      const outcome = await confirmPhone(app.db, session.caller.userId, code, app.clock());
      return seeOther(reply, `${ACCOUNT_NOTIFICATIONS_PATH}?done=code-${outcome}`);
    },
  );
};

export default accountNotificationPages;
