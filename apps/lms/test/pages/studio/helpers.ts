import type { LmsApp } from '../../../src/app.js';
import { sessionCookieFor } from '../../helpers/fixtures.js';

/** testConfig()'s PUBLIC_URL: what a browser sends as Origin on our own forms. */
export const OWN_ORIGIN = 'http://localhost:3000';

export interface Answer {
  status: number;
  body: string;
  location: string | undefined;
  headers: Record<string, unknown>;
}

/** A browser of one person: GETs pages and posts the studio's plain forms from the LMS's own origin. */
export async function browserOf(app: LmsApp, userId: string, lang: 'id' | 'en' = 'en') {
  const cookie = `${await sessionCookieFor(app, userId)}; lms_lang=${lang}`;
  const answer = (res: Awaited<ReturnType<LmsApp['inject']>>): Answer => ({
    status: res.statusCode,
    body: res.body,
    location: res.headers.location as string | undefined,
    headers: res.headers,
  });
  return {
    cookie,
    get: async (url: string) => answer(await app.inject({ method: 'GET', url, headers: { cookie } })),
    post: async (url: string, fields: Record<string, string> = {}, headers: Record<string, string> = { origin: OWN_ORIGIN }) =>
      answer(
        await app.inject({
          method: 'POST',
          url,
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
          payload: new URLSearchParams(fields).toString(),
        }),
      ),
    upload: async (
      url: string,
      file: { name: string; type: string; bytes: Buffer },
      headers: Record<string, string> = { origin: OWN_ORIGIN },
    ) => {
      const boundary = '----studio-test-boundary';
      const payload = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`,
        ),
        file.bytes,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      return answer(
        await app.inject({
          method: 'POST',
          url,
          headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}`, ...headers },
          payload,
        }),
      );
    },
  };
}

/** The value of a form field in a page (the first `name="…" value="…"`), as a test reads the page. */
export function fieldValue(body: string, name: string): string | undefined {
  const input = body.match(new RegExp(`name="${name}"[^>]*value="([^"]*)"`));
  if (input) return input[1];
  const area = body.match(new RegExp(`name="${name}"[^>]*>([^<]*)</textarea>`));
  return area?.[1];
}
