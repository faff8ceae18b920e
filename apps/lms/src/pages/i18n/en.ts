import { notificationMessagesEn } from '../notifications/messages.js';
import { apiKeysMessagesEn } from '../api-keys/messages.js';
import { catalogMessagesEn } from '../catalog/messages.js';
import { courseMessagesEn } from '../course/messages.js';
import { dashboardMessagesEn } from '../dashboard/messages.js';
import { reportMessagesEn } from '../evidence/messages.js';
import { certificateMessagesEn } from '../learning/certificate-messages.js';
import { creditMessagesEn } from '../learning/credit-messages.js';
import { evidenceMessagesEn } from '../learning/evidence-messages.js';
import { learnMessagesEn } from '../learning/learn-messages.js';
import { enrolMessagesEn } from '../learning/messages.js';
import { pathMessagesEn } from '../learning/path-messages.js';
import { signInMessagesEn } from '../sign-in/messages.js';
import { formErrorMessagesEn } from '../form-error-messages.js';
import { studioMessagesEn } from '../studio/messages.js';
import { studioWordsMessagesEn } from '../studio/words-messages.js';
import { type Html, html } from '../view/html.js';
import type { Format } from './format.js';
import type { Messages } from './id.js';

/** The pages in English: the same keys as the Indonesian catalog (./id.ts), which the type enforces. */
export function en(f: Format): Messages {
  return {
    ...signInMessagesEn(),
    ...notificationMessagesEn(),
    ...dashboardMessagesEn(f),
    ...catalogMessagesEn(f),
    ...courseMessagesEn(f),
    ...apiKeysMessagesEn(),
    ...enrolMessagesEn(f),
    ...creditMessagesEn(f),
    ...reportMessagesEn(f),
    ...studioMessagesEn(),
    ...formErrorMessagesEn(),
    ...studioWordsMessagesEn((amount, currency) => f.money(amount, currency)),
    ...pathMessagesEn(f),
    ...learnMessagesEn(f),
    ...certificateMessagesEn(f),
    ...evidenceMessagesEn(f),
    layout: {
      title: (title) => `${title} · LMS`,
      skipToContent: 'Skip to content',
      mainNav: 'Main',
      dashboard: 'Dashboard',
      catalog: 'Catalog',
      bundles: 'Bundles',
      apiKeys: 'API keys',
      signedInAs: (name): Html => html`<span class="sr-only">Signed in as </span>${name}`,
      signOut: 'Sign out',
      language: 'Language',
    },

    errorPages: {
      403: { title: 'Not allowed', text: 'Your account may not open this page.' },
      404: { title: 'Page not found', text: 'There is nothing here, or it is not visible to you.' },
      413: { title: 'Too much to send', text: 'What this form sent is larger than it accepts. Go back, shorten it and send it again.' },
      429: {
        title: 'Too many requests',
        text: 'Too many requests came from you or your address in a short time. Please wait a moment, then try again.',
      },
      500: { title: 'Something went wrong', text: 'We could not show this page just now. Please try again in a moment.' },
      503: {
        title: 'Service temporarily unavailable',
        text: 'Our service is having a temporary problem. Please try again in a few minutes.',
      },
    },
    errors: {
      backToDashboard: 'Back to your dashboard',
      howToSignIn: 'How to sign in',
    },

    status: { 'not-started': 'Not started', 'in-progress': 'In progress', completed: 'Completed' },
    tier: { anggota: 'Member', umum: 'General public', mahasiswa: 'Student' },
    certificate: { issued: 'Issued', eligible: 'Eligible', notYet: 'Not yet' },
    common: {
      none: 'None',
      progressOf: (name) => `${name} progress`,
      kum: (n) => `${f.number(n)} KUM`,
      modules: (n) => f.plural(n, { one: '# module', other: '# modules' }),
      chapters: (n) => f.plural(n, { one: '# chapter', other: '# chapters' }),
      students: (n) => f.plural(n, { one: '# student', other: '# students' }),
      questions: (n) => f.plural(n, { one: '# question', other: '# questions' }),
      ignored: (fields) => `Ignored an invalid value for: ${f.list(fields)}.`,
      pager: {
        label: 'Pages',
        previous: 'Previous',
        next: 'Next',
        pageOf: (page, pages) => `Page ${f.number(page)} of ${f.number(pages)}`,
      },
    },
  };
}
