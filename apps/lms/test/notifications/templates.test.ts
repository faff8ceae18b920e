import t from 'tap';
import { NOTIFICATION_KINDS, type NotificationLocale } from '../../src/notifications/contract.js';
import { renderNotification } from '../../src/notifications/templates/index.js';
import { type DefaultTreeAdapterMap, parse } from 'parse5';
import { pageWords } from '../helpers/page-words.js';
import { SAMPLES, url } from '../helpers/notification-samples.js';

// Every kind of notification rendered in both languages from hostile data: whole words (no
// `undefined`, no placeholder), every value escaped in the HTML part, every link of the data and
// the footer's links in both parts, Rupiah and times as the person reads them, and no English
// sentence in the Indonesian text (the function-word check of the studio's form-words test).

const LINKS = {
  publicUrl: 'https://lms.test',
  settingsUrl: url('dashboard/settings/notifications'),
  unsubscribeUrl: url('unsubscribe/tok'),
};
const RECEIPT_LINKS = { publicUrl: 'https://lms.test', settingsUrl: LINKS.settingsUrl };

/** English on an Indonesian page: its function words and its greetings. */
const ENGLISH = [' the ', ' you ', ' your ', 'You', 'Your', ' is ', ' and ', ' of ', ' to ', ' with ', 'Hello', 'Please', 'Thank', ' has '];
const INDONESIAN = [' Anda ', ' dan ', ' yang ', 'Halo', 'Silakan', 'Terima kasih', ' untuk ', ' sudah '];

const urlsOf = (data: object) =>
  Object.entries(data)
    .filter(([key]) => key.endsWith('Url'))
    .map(([, value]) => value as string);

/** The elements and attribute names of an HTML part, as a browser parses it. */
function markupOf(html: string): { elements: string[]; attributes: string[] } {
  const elements = new Set<string>();
  const attributes = new Set<string>();
  const visit = (node: DefaultTreeAdapterMap['node']) => {
    if ('tagName' in node) {
      elements.add(node.tagName);
      for (const a of node.attrs) attributes.add(a.name);
    }
    if ('childNodes' in node) node.childNodes.forEach(visit);
  };
  visit(parse(html) as DefaultTreeAdapterMap['node']);
  return { elements: [...elements].sort(), attributes: [...attributes].sort() };
}

/** What the layout itself is made of: anything else came from the data. */
const LAYOUT = {
  elements: ['a', 'body', 'br', 'div', 'head', 'html', 'li', 'meta', 'p', 'table', 'tbody', 'td', 'title', 'tr', 'ul'],
  attributes: ['aria-label', 'charset', 'content', 'href', 'lang', 'name', 'role', 'style'],
};

/** What a person reads of the HTML part (text and labels), the data's own titles left out. */
const readable = (html: string) =>
  pageWords(html, { skip: ['style'] })
    .join(' ')
    .replace(/\s+/g, ' ');

for (const locale of ['id', 'en'] as NotificationLocale[]) {
  t.test(`every kind in ${locale}`, async (t) => {
    for (const kind of NOTIFICATION_KINDS) {
      const data = SAMPLES[kind];
      const m = renderNotification(kind, locale, data as never, LINKS, 'Asia/Jakarta');
      for (const [part, text] of Object.entries(m)) {
        t.notMatch(text, /undefined|null|NaN|\[object|\{\w+\}/, `${kind} ${locale}: the ${part} is whole`);
      }
      t.notMatch(m.subject, /[\r\n]/, `${kind}: the subject is one line`);
      t.ok(m.subject.length > 5 && m.text.length > 80, `${kind}: words in the subject and the text`);
      // Escaped: no tag from the data, and the data's markup shown as text.
      t.notMatch(
        m.html,
        /<script|<img|<b>|<akhir>|<BCA>|<Pusat>|<jelas>|<transfer>|<dibatalkan>|<Akuntan>/,
        `${kind}: no tag from the data`,
      );
      t.match(m.html, /&lt;/, `${kind}: the data's < escaped`);
      const markup = markupOf(m.html);
      t.same(
        [
          ...markup.elements.filter((e) => !LAYOUT.elements.includes(e)),
          ...markup.attributes.filter((a) => !LAYOUT.attributes.includes(a)),
        ],
        [],
        `${kind}: only the layout's elements and attributes`,
      );
      t.match(m.html, `<html lang="${locale}">`);
      for (const link of [...urlsOf(data), LINKS.settingsUrl, LINKS.unsubscribeUrl]) {
        t.ok(m.text.includes(link), `${kind} ${locale}: ${link} in the text`);
        t.ok(m.html.includes(`href="${link}"`), `${kind} ${locale}: ${link} linked in the HTML`);
      }
      if (locale === 'id') {
        const words = ` ${m.subject} ${m.text.replaceAll(data && 'courseTitle' in data ? data.courseTitle : '', '')} ${readable(m.html)} `;
        const english = ENGLISH.filter((w) => words.includes(w));
        t.same(english, [], `${kind} (id): no English`);
      } else {
        const words = ` ${m.subject} ${m.text} ${readable(m.html)} `;
        t.same(
          INDONESIAN.filter((w) => words.includes(w)),
          [],
          `${kind} (en): no Indonesian`,
        );
      }
    }
  });
}

t.test('amounts, times and zones as the person reads them', async (t) => {
  const data = SAMPLES['purchase.transfer_instructions'];
  const id = renderNotification('purchase.transfer_instructions', 'id', data, RECEIPT_LINKS, 'Asia/Jakarta');
  t.match(id.text, /Rp\s350\.000/u, 'Rupiah, grouped the Indonesian way');
  t.match(id.text, '30 Nov 2026, 17.00 WIB', '10:00 UTC is 17.00 WIB');
  const makassar = renderNotification('purchase.transfer_instructions', 'id', data, RECEIPT_LINKS, 'Asia/Makassar');
  t.match(makassar.text, '30 Nov 2026, 18.00 WITA');
  const jayapura = renderNotification('purchase.expiring', 'en', SAMPLES['purchase.expiring'], LINKS, 'Asia/Jayapura');
  t.match(jayapura.subject, '2 Dec 2026, 01:30 WIT', "16:30 UTC is the next day's 01:30 WIT");
  t.match(jayapura.text, /IDR\s1,250,000/u, "English: the pages' money format");
  t.match(id.html, /Rp\s350\.000/u);
  t.match(renderNotification('credits.progress', 'id', SAMPLES['credits.progress'], LINKS, 'Asia/Jakarta').text, '12,5 dari 30 SKP');
  t.match(renderNotification('course.ending', 'en', { ...SAMPLES['course.ending'], daysLeft: 1 }, LINKS, 'UTC').subject, 'ends in 1 day');
  t.match(renderNotification('course.ending', 'en', SAMPLES['course.ending'], LINKS, 'UTC').subject, 'ends in 7 days');
});

t.test('a receipt has no unsubscribe link, only the settings', async (t) => {
  for (const locale of ['id', 'en'] as NotificationLocale[]) {
    const m = renderNotification('purchase.paid', locale, SAMPLES['purchase.paid'], RECEIPT_LINKS, 'Asia/Jakarta');
    t.notMatch(m.text, 'unsubscribe');
    t.notMatch(m.html, 'unsubscribe');
    t.notMatch(m.text, /Berhenti|Stop receiving/);
    t.match(m.html, `href="${RECEIPT_LINKS.settingsUrl}"`);
  }
});

t.test('a link that is not http(s) is refused, never put in an href', async (t) => {
  t.throws(
    () => renderNotification('enrolment.confirmed', 'id', { courseTitle: 'x', courseUrl: 'javascript:alert(1)' }, LINKS, 'Asia/Jakarta'),
    /not an http\(s\) URL/,
  );
});
