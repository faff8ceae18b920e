import { ChapterIdParams } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { completeChapter, findChapterRow, openChapter } from '../../domain/learning/chapters.js';
import { findStep, loadCoursePath, pathRoleOf } from '../../domain/learning/course-path.js';
import { NotFoundError } from '../../errors.js';
import { MARKDOWN_PAGE_CSP, sendPage } from '../send.js';
import { pageSession } from '../session.js';
import { href, html } from '../view/html.js';
import { markdownFragment } from '../view/markdown.js';
import { learnScope, stepPage } from './learn-scope.js';
import { nextStepBox } from './outline.js';
import { formOptions, pageOptions, seeOther, signedIn } from '../page-route.js';

/** The learner's chapter (/learn/chapters/:id): its text, and the form that marks it complete. */
const chapterPages: FastifyPluginAsyncZod = async (app) => {
  learnScope(app);

  app.get('/chapters/:id', pageOptions({ params: ChapterIdParams }), async (request, reply) => {
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
<article class="card">${markdownFragment(content)}</article>
${action}
${(preview || done) && nextStepBox(ctx, path, step)}`;
    return sendPage(reply, stepPage(ctx, session, row.name, path, main, { kind: 'chapter', id: row.id }), 200, MARKDOWN_PAGE_CSP);
  });

  app.post('/chapters/:id/complete', formOptions({ params: ChapterIdParams }), async (request, reply) => {
    const session = await pageSession(app, request);
    await completeChapter(app.db, session.caller.userId, request.params.id, app.clock());
    // Back to the chapter, which now says it is done and offers the next step (or says what opens it).
    return seeOther(reply, `/learn/chapters/${request.params.id}`);
  });
};

export default chapterPages;
