import { ErrorResponse, RedirectResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ForbiddenError } from '../errors.js';
import { isSameOrigin } from '../plugins/csrf.js';
import { acceptFormBodies } from './form-body.js';
import { LANGUAGE_COOKIE, type Locale, LOCALES } from './i18n/index.js';
import { seeOther } from './page-route.js';

/** Where the language switch of every page posts (./view/layout.ts). */
export const LANGUAGE_PATH = '/language';

/** Where the switch lands when the page to come back to is missing or not one of ours. */
const FALLBACK = '/dashboard';

/** The pages the switch may send back to: a path (and query) of ours, nothing else. */
const PAGE_PATH = /^\/(dashboard(\/|$|\?)|sign-in($|\?))/;

const MAX_RETURN_LENGTH = 2048;

/**
 * The page to come back to after switching, from the form's `next`: only a path of our own pages
 * on this site, so the switch can never be an open redirect. Anything else (another host, `//`
 * or `/\` tricks, control characters, which URL parsers drop or turn into slashes, a scheme, a
 * path outside the pages) gives /dashboard.
 */
export function returnPath(next: string | undefined): string {
  if (!next || next.length > MAX_RETURN_LENGTH) return FALLBACK;
  // Refused as given: browsers read `\` as `/` and drop tabs and newlines, so `/\evil` and
  // `/\t/evil` would otherwise become `//evil`, another host.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  if (!next.startsWith('/') || /[\\\u0000-\u001f\u007f]/.test(next)) return FALLBACK;
  const base = 'http://lms.invalid';
  let url: URL;
  try {
    url = new URL(next, base);
  } catch {
    return FALLBACK;
  }
  const path = `${url.pathname}${url.search}`;
  // The parsed path, not the given one: `/.//evil` normalises to `//evil`.
  if (url.origin !== base || path.startsWith('//') || !PAGE_PATH.test(path)) return FALLBACK;
  return path;
}

const LanguageForm = z.object({
  lang: z.enum(Object.keys(LOCALES) as [Locale, ...Locale[]]),
  next: z.string().optional(),
});

/** A year, in seconds: the choice is remembered until the person makes another. */
const COOKIE_MAX_AGE = 365 * 24 * 60 * 60;

/**
 * POST /language: the language switch. Sets the `lms_lang` cookie and sends the browser back
 * (303) to the page it came from.
 *
 * Cross-site requests: what a forged switch could do is change the language someone sees (no
 * data, no account, nothing read back), so it is not a risk that matters; still, it is a POST
 * (no link, image or prefetch flips it) from our own pages only (Origin or Sec-Fetch-Site, as for
 * sign-out), so another site cannot do even that. A plain form sends no `x-requested-with`, so
 * the CSRF plugin's header rule is off for this route and the same-origin rule applies instead.
 */
const languageRoute: FastifyPluginAsyncZod = async (app) => {
  // The switch is a plain HTML form.
  acceptFormBodies(app, 4096);
  const secure = app.config.PUBLIC_URL.startsWith('https:');

  app.post(
    LANGUAGE_PATH,
    {
      config: { public: true, csrf: false },
      schema: {
        hide: true,
        tags: ['pages'],
        summary: 'The language switch of the pages: sets the `lms_lang` cookie, 303 back to the page (`next`)',
        body: LanguageForm,
        response: { 303: RedirectResponse, 400: ErrorResponse, 403: ErrorResponse },
      },
    },
    async (request, reply) => {
      if (!isSameOrigin(request, app.config.PUBLIC_URL)) {
        throw new ForbiddenError('The language switch must come from the LMS itself (Origin header missing or foreign)');
      }
      const { lang, next } = request.body;
      reply.setCookie(LANGUAGE_COOKIE, lang, { path: '/', sameSite: 'lax', httpOnly: true, secure, maxAge: COOKIE_MAX_AGE });
      return seeOther(reply, returnPath(next));
    },
  );
};

export default languageRoute;
