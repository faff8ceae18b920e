import type { Db } from '@lms/db';
import { missingEvidence } from '../../domain/evidence/certificate-evidence.js';
import { courseRequirements } from '../../domain/evidence/requirements.js';
import { courseContacts } from '../../domain/learning/course-contacts.js';
import type { PageContext } from '../i18n/index.js';
import { type Html, href, html } from '../view/html.js';
import { contactLine } from './contact.js';

/**
 * The course page's list of what the certificate still waits for (the pre-test, the post-test
 * score, the evaluation), each with its link; nothing when it waits for nothing (a course without
 * an accreditation asking for evidence, or all of it met).
 */
export async function evidenceSection(db: Db, ctx: PageContext, userId: string, courseId: number, at: Date): Promise<Html> {
  const missing = await missingEvidence(db, userId, courseId, await courseRequirements(db, courseId, at));
  if (missing.length === 0) return html``;
  const e = ctx.t.evidence;
  const quizLink = (quizId: number | null, label: string) =>
    quizId === null
      ? html`${label} <span class="muted">${e.noQuiz}</span>`
      : html`<a href="${href('/learn/quizzes', quizId)}">${label}</a>`;
  const items = missing.map((m) =>
    m.kind === 'pre_test'
      ? html`<li>${quizLink(m.quizId, e.preTest)}</li>`
      : m.kind === 'post_test'
        ? html`<li>${quizLink(m.quizId, e.postTest(m.minScore, m.bestScore))}</li>`
        : html`<li><a href="${href('/learn/courses', courseId, 'evaluation')}">${e.evaluation}</a></li>`,
  );
  // A quiz the accreditation asks for and the course lacks: the learner cannot act; whom to ask, named.
  const contact =
    missing.some((m) => m.kind !== 'evaluation' && m.quizId === null) && contactLine(ctx, await courseContacts(db, courseId), 'grant');
  return html`<section class="notice" aria-labelledby="evidence-missing"><p id="evidence-missing">${e.waiting}</p><ul>${items}</ul>${contact}</section>`;
}

/** The managers' link to the evaluation summary. */
export function evaluationSummaryLink(ctx: PageContext, courseId: number): Html {
  return html`<p><a href="${href('/learn/courses', courseId, 'evaluation', 'summary')}">${ctx.t.evidence.summaryLink}</a></p>`;
}
