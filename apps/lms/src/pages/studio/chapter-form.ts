import { AUTHORING_LIMITS, ChapterBody } from '@lms/contracts';
import type { PageContext } from '../i18n/index.js';

// The chapter editor's form helpers (./chapter.ts, ./chapter-preview.ts): a video link as its
// player's embed, put into the text at the cursor, and the API's own limits of a chapter's text.

/**
 * A video URL from one of the allowed hosts (or their subdomains) as the URL of its embeddable
 * player (YouTube's privacy-enhanced one, Vimeo's), or null when the host is not allowed or the
 * URL names no video. Only these players' hosts are allowed as frames (../view/markdown.ts, the CSP).
 */
export function videoEmbedUrl(input: string, allowedHosts: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const host = url.hostname.toLowerCase();
  const allowed = allowedHosts.some((h) => host === h || host.endsWith(`.${h}`));
  if (!allowed) return null;
  const idPattern = /^[A-Za-z0-9_-]{6,20}$/;
  if (host === 'youtu.be' || host.endsWith('.youtu.be')) {
    const id = url.pathname.slice(1);
    return idPattern.test(id) ? `https://www.youtube-nocookie.com/embed/${id}` : null;
  }
  if (host === 'youtube.com' || host.endsWith('.youtube.com') || host.endsWith('youtube-nocookie.com')) {
    const id = url.searchParams.get('v') ?? url.pathname.match(/^\/(?:embed|shorts|live)\/([^/]+)/)?.[1] ?? '';
    return idPattern.test(id) ? `https://www.youtube-nocookie.com/embed/${id}` : null;
  }
  if (host === 'vimeo.com' || host.endsWith('.vimeo.com')) {
    const id = url.pathname.match(/(?:^|\/)(\d{5,12})(?:\/|$)/)?.[1];
    return id ? `https://player.vimeo.com/video/${id}` : null;
  }
  return null;
}

/** The Markdown a video adds to a chapter: the player's frame (kept by the sanitizer for these hosts only), a block of its own. */
export function videoMarkdown(embedUrl: string, title: string): string {
  const safeTitle = title.replace(/["<>&]/g, '');
  return `<iframe src="${embedUrl}" title="${safeTitle}" width="560" height="315" allowfullscreen></iframe>`;
}

/**
 * `block` put into `text` at `cursor` (a character offset the editor's script sends; blank, not a
 * number or out of range: the end), on lines of its own with a blank line either side, so that
 * Markdown reads it as a block (an HTML block ends at a blank line).
 */
export function insertAtCursor(typed: string, cursor: string | undefined, block: string): string {
  // A browser sends a textarea's lines ended by CRLF, while its cursor counts a line end as one character.
  const text = typed.replace(/\r\n?/g, '\n');
  const at = /^\d{1,7}$/.test(String(cursor ?? '').trim()) ? Math.min(Number(cursor), text.length) : text.length;
  const before = text.slice(0, at).replace(/[ \t]*$/, '');
  const after = text.slice(at).replace(/^[ \t]*/, '');
  const lead = before === '' ? '' : before.endsWith('\n\n') ? '' : before.endsWith('\n') ? '\n' : '\n\n';
  const trail = after === '' ? '\n' : after.startsWith('\n\n') ? '' : after.startsWith('\n') ? '\n' : '\n\n';
  return `${before}${lead}${block}${trail}${after}`;
}

/** The API's own rule for a chapter's content (length, no NUL, no lone surrogate). */
const ChapterContent = ChapterBody.shape.content;

/**
 * What is wrong with a chapter's typed content, in the person's words, or null: the limits of a
 * saved chapter (AUTHORING_LIMITS.chapterContentChars characters, text PostgreSQL can store), so
 * that neither a save nor a preview renders more than a chapter may hold.
 */
export function chapterContentProblem(ctx: PageContext, content: string | undefined): string | null {
  const value = content ?? '';
  const words = ctx.t.studio.chapter;
  if (value.length > AUTHORING_LIMITS.chapterContentChars)
    return words.tooLong(ctx.f.number(AUTHORING_LIMITS.chapterContentChars), ctx.f.number(value.length));
  if (!ChapterContent.safeParse(value).success) return words.notText;
  return null;
}
