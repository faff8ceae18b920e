import { ChapterIdParams } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type ChapterTime, chapterTimeFor, TimeNotMetError } from '../../domain/evidence/chapter-time.js';
import { completeChapter, findChapterRow, openChapter } from '../../domain/learning/chapters.js';
import { findStep, loadCoursePath, pathRoleOf } from '../../domain/learning/course-path.js';
import { NotFoundError } from '../../errors.js';
import { CHAPTER_TIME_SCRIPT_PATH } from '../assets.js';
import type { PageContext } from '../i18n/index.js';
import { MARKDOWN_PAGE_CSP, sendPage } from '../send.js';
import { pageSession } from '../session.js';
import { type Html, href, html } from '../view/html.js';
import { markdownFragment } from '../view/markdown.js';
import { learnScope, stepPage } from './learn-scope.js';
import { nextStepBox } from './outline.js';
import { formOptions, pageOptions, seeOther, signedIn } from '../page-route.js';

/** `?early=1`: the completion was refused for want of time on the page (anything else is ignored). */
const EarlyFlash = z.object({ early: z.literal('1').optional().catch(undefined) }).passthrough();

/** "3 menit 20 detik": a wait in the page's words (the script writes it the same way). */
function waitText(ctx: PageContext, seconds: number): string {
  const { min, sec } = ctx.t.learn.chapter.units;
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return m === 0 ? `${s} ${sec}` : s === 0 ? `${m} ${min}` : `${m} ${min} ${s} ${sec}`;
}

/**
 * The expected minutes, and when the course requires a share of them, what is left: the box the
 * page's script (../client/chapter-time.ts) beats from and keeps up to date.
 */
function timeBox(ctx: PageContext, chapterId: number, time: ChapterTime, done: boolean): Html {
  const words = ctx.t.learn.chapter;
  const script = {
    url: `/api/learning/chapters/${chapterId}/heartbeat`,
    left: words.timeLeft,
    met: words.timeMet,
    units: words.units,
  };
  const left =
    time.requiredSeconds === null || done
      ? false
      : html` <span id="chapter-time-left">${
          time.remainingSeconds > 0 ? words.timeLeft.replace('{wait}', waitText(ctx, time.remainingSeconds)) : words.timeMet
        }</span>`;
  return html`<p class="muted" id="chapter-time" data-script="${JSON.stringify(script)}">${words.expected(time.expectedMinutes)}${left}</p>`;
}

/** The learner's chapter (/learn/chapters/:id): its text, its time, and the form that marks it complete. */
const chapterPages: FastifyPluginAsyncZod = async (app) => {
  learnScope(app);

  app.get('/chapters/:id', pageOptions({ params: ChapterIdParams, querystring: EarlyFlash }), async (request, reply) => {
    const { session, ctx } = await signedIn(app, request);
    const { t } = ctx;
    const row = await findChapterRow(app.db, request.params.id);
    if (!row) throw new NotFoundError('Chapter not found');
    const { role } = await pathRoleOf(app.db, session.caller, row.courseId);
    // A manager not enrolled reads it as a learner would, read-only (no progress written);
    // anyone else goes through the learner's refusals (not enrolled, locked: a 403 saying why).
    const preview = role === 'manager';
    const ch = preview ? null : await openChapter(app.db, session.caller.userId, row.id);
    const path = await loadCoursePath(app.db, session.caller.userId, row.courseId, preview ? 'preview' : 'learner');
    // biome-ignore lint/style/noNonNullAssertion: a chapter of the course is a step of its path.
    const step = findStep(path, 'chapter', row.id)!;
    const done = ch?.completed ?? false;
    const time = ch ? await chapterTimeFor(app.db, session.caller.userId, ch, app.clock()) : null;
    const early =
      time !== null &&
      !done &&
      request.query.early === '1' &&
      time.remainingSeconds > 0 &&
      html`<p class="error" role="alert">${t.learn.chapter.tooEarly.replace('{wait}', waitText(ctx, time.remainingSeconds))}</p>`;
    const action = preview
      ? html`<p class="notice">${t.path.manager.readOnly}</p>`
      : done
        ? html`<p><span class="badge completed">${t.learn.chapter.completed}</span> ${t.path.chapterDone}</p>`
        : html`<form method="post" action="${href('/learn/chapters', row.id, 'complete')}"><button type="submit">${t.learn.chapter.markComplete}</button></form>`;
    // Once per chapter text for every reader, off the event loop (lib/markdown/renderer.ts).
    const content = await app.markdown.render(row.content);
    const main = html`<p class="muted">${t.learn.chapter.ofCourse(row.courseName, row.moduleName)}</p>
<h1>${row.name}</h1>
${preview && html`<p class="notice">${t.path.manager.previewBanner}</p>`}
${time ? timeBox(ctx, row.id, time, done) : html`<p class="muted">${t.learn.chapter.expected(row.expectedMinutes)}</p>`}
${early}
<article class="card">${markdownFragment(content)}</article>
${action}
${(preview || done) && nextStepBox(ctx, path, step)}`;
    // The learner's page beats (its time is measured); a manager's preview does not.
    const script = preview ? undefined : CHAPTER_TIME_SCRIPT_PATH;
    return sendPage(reply, stepPage(ctx, session, row.name, path, main, { kind: 'chapter', id: row.id }, script), 200, MARKDOWN_PAGE_CSP);
  });

  app.post('/chapters/:id/complete', formOptions({ params: ChapterIdParams }), async (request, reply) => {
    const session = await pageSession(app, request);
    try {
      await completeChapter(app.db, app.receipts, session.caller.userId, request.params.id, app.clock(), session.caller.sessionTokenHash);
    } catch (err) {
      // Too early for the course's credit: back to the chapter, which says how long is left.
      if (err instanceof TimeNotMetError) return seeOther(reply, `/learn/chapters/${request.params.id}?early=1`);
      throw err;
    }
    // Back to the chapter, which now says it is done and offers the next step (or says what opens it).
    return seeOther(reply, `/learn/chapters/${request.params.id}`);
  });
};

export default chapterPages;
