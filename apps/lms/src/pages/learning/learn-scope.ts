import type { FastifyInstance } from 'fastify';
import { LockedError, NotEnrolledError } from '../../domain/learning/access.js';
import type { CoursePath } from '../../domain/learning/course-path.js';
import { ForbiddenError } from '../../errors.js';
import { acceptFormBodies } from '../form-body.js';
import { type PageContext, pageContext } from '../i18n/index.js';
import type { PageSession } from '../session.js';
import { type Html, href, html } from '../view/html.js';
import { page } from '../view/layout.js';
import { outline } from './outline.js';

/**
 * What the learner's screens (a chapter: ./chapter.ts, a quiz and its attempts: ./quiz.ts, the
 * printable certificate: ./certificate.ts) share. Plain same-origin forms (POST, then 303 back); the
 * same domain code as /api/learning. A plain form cannot send `x-requested-with`: these POSTs take
 * the CSRF plugin's form rule (`csrf: 'form'`: Origin or Sec-Fetch-Site must say same-origin).
 */
export function learnScope(app: FastifyInstance): void {
  acceptFormBodies(app, 256 * 1024);
  // A 403 page shows its error's message (../index.ts): a locked part or a missing enrolment is
  // said in the person's language, not in the domain's English. Rethrown to the pages' handler.
  app.setErrorHandler(async (err, request) => {
    const words = pageContext(app, request).t.learn.refused;
    if (err instanceof NotEnrolledError) throw new ForbiddenError(words.notEnrolled);
    if (err instanceof LockedError) throw new ForbiddenError(words.locked(err.step));
    throw err;
  });
}

/** A learning page: the way back to the course, the page itself, and the course outline beside it. */
export function stepPage(
  ctx: PageContext,
  session: PageSession,
  title: string,
  path: CoursePath,
  main: Html,
  current: { kind: 'chapter' | 'quiz'; id: number },
  script?: string,
): Html {
  const body = html`<p><a href="${href('/dashboard/courses', path.courseId)}">${ctx.t.path.backToCourse}</a></p>
<div class="with-outline"><div>${main}</div>
${outline(ctx, path, current)}</div>`;
  return page(ctx, title, body, { user: session.user, current: '/dashboard', ...(script ? { script } : {}) });
}
