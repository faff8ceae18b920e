import type { FastifyInstance } from 'fastify';
import { type CourseContacts, type CoursePerson, courseContacts } from '../../domain/learning/course-contacts.js';
import type { Locale, PageContext } from '../i18n/index.js';
import { type Html, html, mailto } from '../view/html.js';

// "Contact" with a name and a link: who to ask about a course (more quiz attempts, a transfer
// account not set up yet), from domain/learning/course-contacts.ts. A person with an address is a
// mailto: link; the institution is always named.

const WORDS = {
  id: {
    lead: 'Hubungi:',
    teacher: 'pengajar kursus',
    admin: (institution: string) => `admin ${institution}`,
    anyAdmin: (institution: string) => `admin ${institution} (belum ada admin yang terdaftar di sini)`,
    or: 'atau',
  },
  en: {
    lead: 'Contact:',
    teacher: "the course's teacher",
    admin: (institution: string) => `an admin of ${institution}`,
    anyAdmin: (institution: string) => `an admin of ${institution} (none is registered here yet)`,
    or: 'or',
  },
} satisfies Record<Locale, unknown>;

/** Who, for what: `grant` (attempts: the teacher first) or `account` (the transfer account: the admin first). */
export type ContactFor = 'grant' | 'account';

function person(p: CoursePerson, role: string): Html {
  const link = mailto(p.email);
  return html`${link ? html`<a href="${link}">${p.name}</a>` : p.name} (${role})`;
}

/** The contact line for these contacts; false without any (no such course). */
export function contactLine(ctx: PageContext, contacts: CourseContacts | null, about: ContactFor): Html | false {
  if (!contacts) return false;
  const w = WORDS[ctx.locale];
  const admin = contacts.admin ? person(contacts.admin, w.admin(contacts.institution)) : html`${w.anyAdmin(contacts.institution)}`;
  const teacher = contacts.teacher && person(contacts.teacher, w.teacher);
  const [first, second] = about === 'grant' ? [teacher, admin] : [admin, teacher];
  const people = first && second ? html`${first} ${w.or} ${second}` : html`${first || second}`;
  return html`<p class="contact">${w.lead} ${people}.</p>`;
}

/** The contact line of a course, read from the database. */
export async function courseContactLine(
  app: FastifyInstance,
  ctx: PageContext,
  courseId: number,
  about: ContactFor,
): Promise<Html | false> {
  return contactLine(ctx, await courseContacts(app.db, courseId), about);
}
