import { AUTHORING_LIMITS } from '@lms/contracts';
import {
  type AuthoringContext,
  chapterForEditor,
  type CourseRow,
  AUTHORING_OPERATIONS as op,
  StaleVersionError,
} from '../../domain/authoring/index.js';
import { estimatedMinutes } from '../../domain/evidence/requirements.js';
import { listPictures, picturePath } from '../../domain/media/pictures.js';
import { BadRequestError, PaymentRequiredError } from '../../errors.js';
import type { PageContext } from '../i18n/index.js';
import { MARKDOWN_PAGE_CSP } from '../send.js';
import { attr, type Html, href, html } from '../view/html.js';
import { MARKDOWN_MAX_NESTING, markdownFragment } from '../view/markdown.js';
import { refusalsByField } from '../form-errors.js';
import { chapterLabel } from './field-labels.js';
import { chapterContentProblem, insertAtCursor, videoEmbedUrl, videoMarkdown } from './chapter-form.js';
import type { FieldErrors, FormValues } from './forms.js';
import { type App, changed, getPage, postForm, versionOf } from './screen.js';
import { field, flash, staleCompare } from './views.js';

// The chapter editor (/dashboard/studio/chapters/:id): its name and Markdown text, a preview of
// what was typed (rendered off the event loop), a video link turned into an embed, and the
// course's pictures to paste; saved by the updateChapter operation at the version it was opened at.

/**
 * The largest chapter form: the content limit in characters, each at most 9 bytes once
 * percent-encoded (a UTF-8 character of three bytes; a four-byte one is two UTF-16 characters),
 * and room for the other fields.
 */
const CHAPTER_FORM_BODY_LIMIT = AUTHORING_LIMITS.chapterContentChars * 9 + 64 * 1024;

/** The editor's words its script says (client/studio-editor.ts). */
const SCRIPT_WORDS = [
  'boldSample',
  'italicSample',
  'headingSample',
  'listSample',
  'linkSample',
  'linkAsk',
  'videoAsk',
  'uploading',
  'uploaded',
  'uploadFailed',
  'livePreview',
  'previewFailed',
  'draftRestored',
  'discardDraft',
  'leaveWarning',
] as const;

type PageOptions = { note?: Html | false; previewTyped?: boolean; compare?: Html | false; storedContent: string };

export default function chapterScreen(app: App) {
  const videoHosts = () => app.config.STUDIO_VIDEO_HOSTS.join(', ');

  const chapterPage = async (
    ctx: PageContext,
    actx: AuthoringContext,
    course: CourseRow,
    chapterId: number,
    values: FormValues,
    errors: FieldErrors,
    options: PageOptions,
  ) => {
    const s = ctx.t.studio;
    const pictures = await listPictures(app.db, actx, course.id);
    const pictureList =
      pictures.length === 0
        ? html`<p class="muted">${s.pictures.none} <a href="${href('/dashboard/studio/courses', course.id, 'pictures')}">${s.chapter.uploadHere}</a></p>`
        : html`<ul class="pictures">${pictures.map(
            (p) =>
              html`<li><img src="${href(picturePath(p))}" alt="" width="80"> <code>![${p.originalName.replace(/[[\]]/g, '')}](${picturePath(p)})</code></li>`,
          )}</ul><p><a href="${href('/dashboard/studio/courses', course.id, 'pictures')}">${s.chapter.uploadHere}</a></p>`;
    const previewSource = options.previewTyped ? (values.content ?? '') : options.storedContent;
    // Rendered once per text, off the event loop (lib/markdown/renderer.ts); the author is told
    // when learners will not see it formatted.
    const rendered = await app.markdown.render(previewSource);
    const renderNote =
      rendered.outcome !== 'rendered' &&
      flash(
        rendered.outcome === 'too_deep'
          ? s.chapter.tooDeep(ctx.f.number(MARKDOWN_MAX_NESTING))
          : rendered.outcome === 'timed_out'
            ? s.chapter.renderTimedOut
            : s.chapter.renderFailed,
        'error',
      );
    const e = s.editor;
    // What the editor's script (client/studio-editor.ts) is given: its words and where to ask; the
    // form works without it.
    const script = {
      chapterId,
      previewUrl: `/dashboard/studio/chapters/${chapterId}/preview`,
      uploadUrl: `/dashboard/studio/courses/${course.id}/pictures`,
      unsaved: (values.content ?? '') !== options.storedContent,
      words: Object.fromEntries([...SCRIPT_WORDS.map((k) => [k, e[k]]), ['previewHeading', s.chapter.previewOf]]),
    };
    const tool = (name: string, label: string, key = '') =>
      html`<button type="button" class="secondary" data-md="${name}"${attr('aria-keyshortcuts', key || null)}>${label}</button>`;
    return html`${options.note ?? false}${options.compare ?? false}
<h2>${s.chapter.title(values.name ?? '')}</h2>
<p><a href="${href('/dashboard/studio/quizzes/chapter', chapterId)}">${e.chapterQuiz}</a></p>
<form method="post" action="${href('/dashboard/studio/chapters', chapterId)}" class="stack editor" id="chapter-form" data-editor="${JSON.stringify(script)}">
<input type="hidden" name="version" value="${values.version ?? ''}">
<input type="hidden" name="cursor" value="">
${field(s.fields.name, 'name', values, errors, { required: true })}
<div class="md-toolbar" role="toolbar" aria-label="${e.toolbar}" aria-controls="f-content" hidden>
${tool('bold', e.bold, 'Control+B')}${tool('italic', e.italic, 'Control+I')}${tool('heading', e.heading)}${tool('list', e.list)}${tool('link', e.link)}${tool('picture', e.picture)}${tool('video', e.video)}
<input type="file" id="editor-file" accept="image/png,image/jpeg,image/webp,image/gif" hidden>
<span class="editor-status muted" role="status" aria-live="polite"></span>
</div>
${field(s.chapter.content, 'content', values, errors, { textarea: 18 })}
${field(s.chapter.expectedMinutes, 'expectedMinutes', values, errors, {
  type: 'number',
  hint: s.chapter.expectedMinutesHint(ctx.f.number(estimatedMinutes(options.storedContent))),
})}
${field(s.chapter.videoUrl, 'videoUrl', values, errors, { type: 'url', hint: s.chapter.videoRefused(videoHosts()) })}
<p><button type="submit" name="action" value="save">${s.save}</button>
<button type="submit" name="action" value="preview" class="secondary">${s.chapter.showPreview}</button>
<button type="submit" name="action" value="video" class="secondary">${s.chapter.addVideo}</button></p>
</form>
<section class="card" aria-labelledby="pics"><h2 id="pics">${s.chapter.pictures}</h2>${pictureList}</section>
<section class="card chapter-preview" aria-labelledby="preview"><h2 id="preview">${options.previewTyped ? s.chapter.previewOf : s.chapter.preview}</h2>
${renderNote}<div class="markdown">${markdownFragment(rendered)}</div></section>`;
  };

  return [
    getPage('/studio/chapters/:id', 'Course studio: chapter editor', async ({ ctx, actx, id, query, show }) => {
      const { course, chapter } = await chapterForEditor(app.db, actx.author, id);
      const values = {
        name: chapter.name,
        content: chapter.content,
        expectedMinutes: chapter.expectedMinutes === null ? '' : String(chapter.expectedMinutes),
        version: String(chapter.version),
      };
      const note = query.saved === '1' && flash(ctx.t.studio.saved);
      const body = await chapterPage(ctx, actx, course, chapter.id, values, {}, { note, storedContent: chapter.content });
      return show(course, 'outline', ctx.t.studio.chapter.title(chapter.name), body, 200, MARKDOWN_PAGE_CSP);
    }),

    postForm(
      '/studio/chapters/:id',
      'Saves a chapter (or previews it, or adds a video)',
      async ({ ctx, actx, id, form, show, back }) => {
        const { course, chapter } = await chapterForEditor(app.db, actx.author, id);
        const typed = { ...form };
        const s = ctx.t.studio;
        const again = (errors: FieldErrors, status: number, extra: Omit<PageOptions, 'storedContent'> = {}) =>
          chapterPage(ctx, actx, course, chapter.id, typed, errors, { storedContent: chapter.content, ...extra }).then((body) =>
            show(course, 'outline', s.chapter.title(chapter.name), body, status, MARKDOWN_PAGE_CSP),
          );
        const fixBelow = { note: flash(s.fixBelow, 'error') };
        const action = String(typed.action ?? 'save');
        // What is typed is checked as a saved chapter is (the content limit) before it is rendered or saved.
        const contentProblem = chapterContentProblem(ctx, typed.content);
        if (contentProblem !== null) return again({ content: contentProblem }, 422, fixBelow);
        if (action === 'preview') return again({}, 200, { previewTyped: true });
        if (action === 'video') {
          const embed = videoEmbedUrl(String(typed.videoUrl ?? ''), app.config.STUDIO_VIDEO_HOSTS);
          if (embed === null) return again({ videoUrl: s.chapter.videoRefused(videoHosts()) }, 422, fixBelow);
          // At the cursor the editor's script sent (the end without it), as a block of its own.
          typed.content = insertAtCursor(String(typed.content ?? ''), typed.cursor, videoMarkdown(embed, String(typed.name ?? 'Video')));
          typed.videoUrl = '';
          const withVideo = chapterContentProblem(ctx, typed.content);
          if (withVideo !== null) return again({ content: withVideo }, 422, fixBelow);
          return again({}, 200, { previewTyped: true });
        }
        const name = String(typed.name ?? '').trim();
        const content = String(typed.content ?? '');
        if (name === '' || name.length > 255)
          return again({ name: name === '' ? ctx.t.formErrors.required : ctx.t.formErrors.tooLong(255) }, 422, fixBelow);
        // Empty: estimated from the text; otherwise the API's rule (a whole number of minutes, 1-1440).
        const minutesTyped = String(typed.expectedMinutes ?? '').trim();
        const expectedMinutes = minutesTyped === '' ? null : /^\d{1,4}$/.test(minutesTyped) ? Number(minutesTyped) : 0;
        if (expectedMinutes !== null && (expectedMinutes < 1 || expectedMinutes > 1440))
          return again({ expectedMinutes: s.chapter.expectedMinutesWrong }, 422, fixBelow);
        try {
          await op.updateChapter(app.db, actx, chapter.id, { name, content, expectedMinutes }, versionOf(typed));
        } catch (err) {
          if (err instanceof StaleVersionError) {
            const stored = err.stored as { name: string; content: string; version: number };
            const latest = href('/dashboard/studio/chapters', chapter.id);
            const compare = staleCompare(
              ctx,
              { name: stored.name, content: stored.content },
              typed,
              ['name', 'content'],
              { holds: 'yours', latest },
              (k) => chapterLabel(ctx, k),
            );
            // The form keeps what was typed, now at the stored version: saving it again overwrites theirs (the page says so).
            typed.version = String(stored.version);
            return again({}, 409, { compare });
          }
          if (err instanceof BadRequestError || err instanceof PaymentRequiredError)
            return again(err instanceof BadRequestError ? refusalsByField(err.details, ctx.t.formErrors) : {}, 422, fixBelow);
          throw err;
        }
        await changed(app, course.id);
        return back(`/dashboard/studio/chapters/${chapter.id}?saved=1`);
      },
      undefined,
      // A chapter's form, not the 4 MiB of a course document: a bigger body is a 413 page before it is parsed.
      { bodyLimit: CHAPTER_FORM_BODY_LIMIT },
    ),
  ];
}
