import { AUTHORING_LIMITS } from '@lms/contracts';
import { z } from 'zod';
import { chapterForEditor } from '../../domain/authoring/index.js';
import { MARKDOWN_MAX_NESTING } from '../view/markdown.js';
import { chapterContentProblem } from './chapter-form.js';
import { type App, AUTHORS, IdParams, type StudioRoute } from './screen.js';

// The chapter editor's live preview (POST /dashboard/studio/chapters/:id/preview, JSON): what is
// typed, rendered by the same renderer and sanitizer as the learner's chapter page
// (app.markdown.render, off the event loop), for those who may write the chapter. Called by
// client/studio-editor.ts with the `x-requested-with` header (the JSON CSRF rule), counted
// against the author's budget per minute like every studio write, and bounded: at most a
// chapter's content (AUTHORING_LIMITS.chapterContentChars), read from a body of at most
// PREVIEW_BODY_LIMIT bytes.

/** A chapter's content as JSON: each character at most 6 bytes (`\uXXXX`), and room for the key. */
export const PREVIEW_BODY_LIMIT = AUTHORING_LIMITS.chapterContentChars * 6 + 1024;

/** What the script sends; anything else is a 400 said in the page's language (not the pages' 404 of a schema miss). */
const PreviewBody = z.object({ content: z.string() }).strict();
const PreviewAnswer = z.object({
  /** The sanitized HTML, as the learner's page would show it. */
  html: z.string(),
  /** `rendered`, or why learners see the text unformatted (`too_deep`, `timed_out`, `failed`). */
  outcome: z.string(),
  /** The author's note on that outcome, in the page's language, or null. */
  note: z.string().nullable(),
});
const Problem = z.object({ message: z.string() });

export default function chapterPreviewScreen(app: App): StudioRoute[] {
  return [
    {
      method: 'POST',
      url: '/studio/chapters/:id/preview',
      config: { auth: AUTHORS, authoringLimited: true },
      bodyLimit: PREVIEW_BODY_LIMIT,
      schema: {
        hide: true,
        tags: ['pages'],
        summary: "Renders a chapter's typed content for the editor's live preview",
        params: IdParams,
        response: { 200: PreviewAnswer, 400: Problem, 422: Problem },
      },
      answer: async ({ ctx, actx, id, request, reply }) => {
        // Who may write this chapter (404/403 otherwise), before anything is rendered.
        await chapterForEditor(app.db, actx.author, id);
        const parsed = PreviewBody.safeParse(request.body);
        if (!parsed.success) return reply.code(400).send({ message: ctx.t.studio.editor.previewBodyWrong });
        const { content } = parsed.data;
        const problem = chapterContentProblem(ctx, content);
        if (problem !== null) return reply.code(422).send({ message: problem });
        const rendered = await app.markdown.render(content);
        const w = ctx.t.studio.chapter;
        const note =
          rendered.outcome === 'rendered'
            ? null
            : rendered.outcome === 'too_deep'
              ? w.tooDeep(ctx.f.number(MARKDOWN_MAX_NESTING))
              : rendered.outcome === 'timed_out'
                ? w.renderTimedOut
                : w.renderFailed;
        reply.header('cache-control', 'no-store');
        return { html: rendered.html, outcome: rendered.outcome, note };
      },
    },
  ];
}
