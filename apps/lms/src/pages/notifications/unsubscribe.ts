import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { BadRequestError, NotFoundError } from '../../errors.js';
import { linkSecret, type UnsubscribeTarget, verifyUnsubscribeToken } from '../../notifications/links.js';
import { logSubject, readPersonSettings, setPreference } from '../../notifications/settings.js';
import { acceptFormBodies } from '../form-body.js';
import { translation } from '../i18n/index.js';
import { PAGE } from '../page-route.js';
import { sendPage } from '../send.js';
import { href, html } from '../view/html.js';
import { page } from '../view/layout.js';

// The one-click unsubscribe (RFC 8058): a message's List-Unsubscribe URL. No session: the token
// (links.ts) is the proof, and it names one person, one kind and one channel. GET shows a page
// asking to confirm, in the person's language (a link scanner opening it changes nothing); POST
// with the body `List-Unsubscribe=One-Click` (what a mail client sends) switches it off. A token
// not made with our key is a 400, one naming a person who no longer exists a 404 (JSON errors,
// the documented shape); neither ever changes anyone's settings. Receipts have no token.

const Query = z.object({ token: z.string().min(1).max(1000) });
const OneClick = z.object({ 'List-Unsubscribe': z.string() }).passthrough();
const INVALID = 'This unsubscribe link is not valid (altered, cut, or not one of ours)';

async function target(app: FastifyInstance, token: string): Promise<UnsubscribeTarget> {
  const secret = linkSecret(app.config);
  const found = secret ? verifyUnsubscribeToken(secret, token) : null;
  if (!found) throw new BadRequestError(INVALID);
  if (!(await logSubject(app.db, found.userId))) throw new NotFoundError('The person this link was sent to no longer has an account');
  return found;
}

async function wordsOf(app: FastifyInstance, userId: string, path: string) {
  const settings = await readPersonSettings(app.db, userId);
  return { ...translation(settings.locale, settings.timeZone), path };
}

const unsubscribeRoutes: FastifyPluginAsyncZod = async (app) => {
  acceptFormBodies(app, 4096);

  app.get('/notifications/unsubscribe', { config: { public: true }, schema: { ...PAGE, querystring: Query } }, async (request, reply) => {
    const found = await target(app, request.query.token);
    const ctx = await wordsOf(app, found.userId, request.url);
    const w = ctx.t.notifications;
    const kind = w.kinds[found.kind];
    const channel = w[found.channel];
    const body = html`<h1>${w.unsubscribeTitle}</h1>
<form method="post">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<p>${w.unsubscribeQuestion(kind, channel)}</p>
<p><button type="submit">${w.unsubscribeButton}</button></p>
</form>
<p><a href="${href('/account/notifications')}">${w.manage}</a></p>`;
    return sendPage(reply, page(ctx, w.unsubscribeTitle, body));
  });

  app.post(
    '/notifications/unsubscribe',
    // No session is involved (a mail client posts on its own): the signed token is the credential,
    // so the cross-site check of session forms does not apply.
    { config: { public: true, csrf: false }, schema: { ...PAGE, querystring: Query, body: OneClick } },
    async (request, reply) => {
      if (request.body['List-Unsubscribe'] !== 'One-Click')
        throw new BadRequestError('The body must be List-Unsubscribe=One-Click (RFC 8058)');
      const found = await target(app, request.query.token);
      await setPreference(app.db, found.userId, found.kind, found.channel, false);
      request.log.info({ userId: found.userId, kind: found.kind, channel: found.channel }, 'notifications: unsubscribed by link');
      const ctx = await wordsOf(app, found.userId, request.url);
      const w = ctx.t.notifications;
      const body = html`<h1>${w.unsubscribeTitle}</h1>
<p role="status">${w.unsubscribed(w.kinds[found.kind], w[found.channel])}</p>
<p><a href="${href('/account/notifications')}">${w.manage}</a></p>`;
      return sendPage(reply, page(ctx, w.unsubscribeTitle, body));
    },
  );
};

export default unsubscribeRoutes;
