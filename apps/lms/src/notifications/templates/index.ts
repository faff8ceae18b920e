import { Format } from '../../pages/i18n/format.js';
import { LOCALES } from '../../pages/i18n/index.js';
import { type MailWords, type NotificationMessages, notificationMessagesId } from '../../pages/i18n/notification-messages.js';
import { notificationMessagesEn } from '../../pages/i18n/notification-messages-en.js';
import { absoluteUrl, type Html, html } from '../../pages/view/html.js';
import type { MessageLinks, NotificationData, NotificationKind, NotificationLocale, RenderedMessage } from '../contract.js';

// A notification as an e-mail: its subject, a text part and an HTML part saying the same, in the
// person's language and time zone. The words are beside the pages' (pages/i18n/notification-
// messages*.ts); here only the layout. The HTML goes through the pages' `html` template, so every
// value (a course title, a reason an admin typed, a digest's lines) is escaped, and a link can
// only be an http(s) URL. Inline styles, one column, no images: what mail programs show alike.

const WORDS: Record<NotificationLocale, (f: Format) => NotificationMessages> = { id: notificationMessagesId, en: notificationMessagesEn };

const catalogs = new Map<string, NotificationMessages>();

/** The words of `locale` in `timeZone`, made once (Intl objects are costly to build). */
function messages(locale: NotificationLocale, timeZone: string): NotificationMessages {
  const key = `${locale} ${timeZone}`;
  let found = catalogs.get(key);
  if (!found) {
    found = WORDS[locale](new Format(LOCALES[locale].tag, timeZone));
    catalogs.set(key, found);
  }
  return found;
}

/** Renders one notification. `timeZone`: the person's IANA zone (times are shown there, with WIB, WITA or WIT). */
export function renderNotification<K extends NotificationKind>(
  kind: K,
  locale: NotificationLocale,
  data: NotificationData[K],
  links: MessageLinks,
  timeZone: string,
): RenderedMessage {
  const catalog = messages(locale, timeZone);
  const words = (catalog[kind] as (data: NotificationData[K]) => MailWords)(data);
  return {
    // One line: a title with a line break in it must not start a second header.
    subject: words.subject.replace(/\s+/g, ' ').trim(),
    text: renderText(words, catalog.common, links),
    html: String(renderHtml(words, catalog.common, links, locale)),
  };
}

type Common = NotificationMessages['common'];

function renderText(words: MailWords, common: Common, links: MessageLinks): string {
  const out: string[] = [common.greeting, '', ...words.paragraphs.flatMap((p) => [p, ''])];
  if (words.details?.length) {
    out.push(`${common.details}:`);
    for (const [label, value] of words.details) out.push(`  ${label}: ${value}`);
    out.push('');
  }
  if (words.lines?.length) out.push(...words.lines.map((line) => `- ${line}`), '');
  out.push(`${words.action.label}:`, words.action.url, '');
  for (const link of words.more ?? []) out.push(`${link.label}:`, link.url, '');
  // "-- " on its own line: mail programs know the footer (signature) starts here.
  out.push('-- ', common.why, `${common.settings}: ${links.settingsUrl}`);
  if (links.unsubscribeUrl) out.push(`${common.unsubscribe}: ${links.unsubscribeUrl}`);
  return `${out.join('\n')}\n`;
}

function renderHtml(words: MailWords, common: Common, links: MessageLinks, locale: NotificationLocale): Html {
  const action = absoluteUrl(words.action.url);
  return html`<!doctype html>
<html lang="${locale}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${words.subject}</title></head>
<body style="margin:0;padding:0;background:#f4f6f8">
<div style="max-width:560px;margin:0 auto;padding:24px 16px;font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;color:#1f2933">
<div style="background:#ffffff;border-radius:8px;padding:24px">
<p style="margin:0 0 16px">${common.greeting}</p>
${words.paragraphs.map((p) => html`<p style="margin:0 0 16px">${p}</p>`)}
${
  words.details?.length
    ? html`<table role="presentation" style="border-collapse:collapse;margin:0 0 16px" aria-label="${common.details}">
${words.details.map(
  ([label, value]) =>
    html`<tr><td style="padding:4px 16px 4px 0;color:#52606d">${label}</td><td style="padding:4px 0;font-weight:bold">${value}</td></tr>`,
)}
</table>`
    : null
}
${words.lines?.length ? html`<ul style="margin:0 0 16px;padding-left:20px">${words.lines.map((line) => html`<li>${line}</li>`)}</ul>` : null}
<p style="margin:24px 0"><a href="${action}" style="display:inline-block;background:#1d4ed8;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;font-weight:bold">${words.action.label}</a></p>
${(words.more ?? []).map((link) => html`<p style="margin:0 0 16px"><a href="${absoluteUrl(link.url)}" style="color:#1d4ed8">${link.label}</a></p>`)}
<p style="margin:0;font-size:13px;color:#52606d">${common.orOpen}<br><a href="${action}" style="color:#1d4ed8;word-break:break-all">${words.action.url}</a></p>
</div>
<p style="margin:16px 0 0;font-size:13px;color:#52606d">${common.why}<br><a href="${absoluteUrl(links.settingsUrl)}" style="color:#1d4ed8">${common.settings}</a>${
    links.unsubscribeUrl ? html` · <a href="${absoluteUrl(links.unsubscribeUrl)}" style="color:#1d4ed8">${common.unsubscribe}</a>` : null
  }</p>
</div>
</body>
</html>
`;
}
