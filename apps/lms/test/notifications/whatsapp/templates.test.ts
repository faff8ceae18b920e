import { readFileSync } from 'node:fs';
import t from 'tap';
import { NOTIFICATION_KINDS } from '../../../src/notifications/contract.js';
import {
  parameterText,
  PHONE_CONFIRMATION_TEMPLATE,
  WHATSAPP_TEMPLATES,
  whatsAppTemplate,
} from '../../../src/notifications/whatsapp/index.js';
import { SAMPLE_DATA } from './samples.js';

// CI runs this file once (not again in the PostgreSQL pass): the WhatsApp templates, no database.

const placeholders = (text: string) => [...text.matchAll(/\{\{(\d+)\}\}/g)].map((m) => Number(m[1]));

t.test(
  'one template per kind and one for the phone code: valid Meta names, unique, numbered 1..n in order in both languages',
  async (t) => {
    t.equal(WHATSAPP_TEMPLATES.length, NOTIFICATION_KINDS.length + 1);
    const names = WHATSAPP_TEMPLATES.map((tpl) => tpl.name);
    t.equal(new Set(names).size, names.length, 'unique names');
    for (const tpl of WHATSAPP_TEMPLATES) {
      t.match(tpl.name, /^lms_[a-z0-9_]+$/);
      for (const locale of ['id', 'en'] as const) {
        const numbers = placeholders(tpl.text[locale]);
        t.same(
          numbers,
          tpl.parameters.map((_, i) => i + 1),
          `${tpl.name} (${locale}): {{1}}..{{${tpl.parameters.length}}} once each, in order`,
        );
      }
    }
    t.equal(PHONE_CONFIRMATION_TEMPLATE.category, 'AUTHENTICATION');
  },
);

t.test('every kind gives as many parameters as its text has placeholders, none empty or with a line break', async (t) => {
  for (const kind of NOTIFICATION_KINDS) {
    for (const locale of ['id', 'en'] as const) {
      const template = whatsAppTemplate(kind, SAMPLE_DATA[kind] as never, locale, 'Asia/Jakarta');
      const submitted = WHATSAPP_TEMPLATES.find((tpl) => tpl.name === template.name)!;
      t.equal(template.language, locale);
      t.equal(template.parameters.length, placeholders(submitted.text[locale]).length, `${kind} (${locale})`);
      t.notOk(
        template.parameters.some((p) => p === '' || /[\n\t]| {5}/.test(p)),
        `${kind} (${locale}): no parameter Meta refuses`,
      );
    }
  }
});

t.test("amounts, times and counts are written in the person's language and zone", async (t) => {
  const transfer = SAMPLE_DATA['purchase.transfer_instructions'];
  const id = whatsAppTemplate('purchase.transfer_instructions', transfer, 'id', 'Asia/Jakarta').parameters;
  t.same(id.slice(1, 3), ['Rp 1.250.000', 'INV-7Q2K']);
  t.equal(id[6], '30 Nov 2026, 17.05 WIB', '10:05 UTC is 17:05 in Jakarta');
  const en = whatsAppTemplate('purchase.transfer_instructions', transfer, 'en', 'Asia/Makassar').parameters;
  t.equal(en[1], 'IDR 1,250,000');
  t.equal(en[6], '30 Nov 2026, 18:05 WITA', 'and 18:05 in Makassar');
  const ending = SAMPLE_DATA['course.ending'];
  t.same(whatsAppTemplate('course.ending', ending, 'id', 'Asia/Jakarta').parameters.slice(1, 4), ['20 Desember 2026', '1 hari', '62,5%']);
  t.same(whatsAppTemplate('course.ending', { ...ending, daysLeft: 3 }, 'en', 'Asia/Jakarta').parameters.slice(1, 4), [
    '20 December 2026',
    '3 days',
    '62.5%',
  ]);
  t.equal(
    whatsAppTemplate('credits.progress', SAMPLE_DATA['credits.progress'], 'id', 'Asia/Jakarta').parameters[1],
    '2026',
    'a year, not 2.026',
  );
  const noAccount = { ...transfer, bankName: '', accountNumber: '', accountName: '' };
  t.same(whatsAppTemplate('purchase.transfer_instructions', noAccount, 'en', 'Asia/Jakarta').parameters.slice(3, 6), [
    '(ask the institution)',
    '(ask the institution)',
    '(ask the institution)',
  ]);
});

t.test('free text is flattened and bounded as Meta takes a parameter; URLs are kept whole', async (t) => {
  t.equal(parameterText('Transfer\nnot\t\tfound      at all'), 'Transfer not found at all');
  t.equal(parameterText('   '), '-');
  const long = parameterText('x'.repeat(500));
  t.equal(long.length, 200);
  t.ok(long.endsWith('…'));
  const url = `https://lms.test/${'a'.repeat(400)}`;
  t.equal(parameterText(url), url);
});

t.test("the operators' table in docs/operations.md is the templates' text", async (t) => {
  const docs = readFileSync(new URL('../../../../../docs/operations.md', import.meta.url), 'utf8');
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, '<br>');
  for (const tpl of WHATSAPP_TEMPLATES) {
    const row = `| \`${tpl.name}\` | ${tpl.category} | ${tpl.parameters.join(', ')} | ${cell(tpl.text.id)} | ${cell(tpl.text.en)} |`;
    t.ok(docs.includes(row), `${tpl.name}: its row, as submitted`);
  }
});
