import { HtmlPage } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findCertificateByCode } from '../../domain/learning/certificates.js';
import { type PageContext, pageContext } from '../i18n/index.js';
import { sendPage } from '../send.js';
import { optionalSession } from '../session.js';
import { type Html, href, html } from '../view/html.js';
import { page } from '../view/layout.js';
import { certificateCard, privateCertificateCard, statusNotice } from './certificate-card.js';

/** The form that checks a code (GET /certificates?code=…): works without JavaScript and without a session. */
function checkForm(ctx: PageContext, code = ''): Html {
  const c = ctx.t.path.certificateCheck;
  return html`<form method="get" class="filters" action="${href('/certificates')}">
<label>${c.label} <input name="code" value="${code}" maxlength="200" autocomplete="off" required></label>
<button type="submit">${c.submit}</button>
</form>`;
}

/**
 * GET /certificates/{code}: the public verification page, no session needed. A forged or unknown
 * code gets its own 404 page, "this certificate is not valid" (never a sign-in link: whoever
 * checks a certificate is usually not one of our users); a code of the wrong shape is not even
 * looked up, a well-formed one costs one unique-index lookup whether it exists or not.
 */
const verificationPage: FastifyPluginAsyncZod = async (app) => {
  const show = async (request: Parameters<typeof pageContext>[1], reply: Parameters<typeof sendPage>[0], code: string | undefined) => {
    const ctx = pageContext(app, request);
    const c = ctx.t.path.certificateCheck;
    const user = await optionalSession(app, request);
    if (code === undefined || code === '') return sendPage(reply, page(ctx, c.title, html`<h1>${c.title}</h1>${checkForm(ctx)}`, { user }));
    const cert = await findCertificateByCode(app.db, code);
    if (!cert) {
      const body = html`<h1>${c.invalidTitle}</h1>
<div class="error" role="alert"><p>${c.invalid}</p></div>
${checkForm(ctx, code)}`;
      return sendPage(reply, page(ctx, c.invalidTitle, body, { user }), 404);
    }
    // The status by certificateStatus() (the one rule): valid, revoked with its date (and reason),
    // expired with its date. A certificate its holder keeps private shows that it exists and its
    // status, nothing more: no name, no course, no reason (a reason can speak of the person).
    // Never the membership number nor the e-mail. A reissue is not mentioned on the revoked one's
    // page: that would say the same person holds another certificate.
    const now = app.clock();
    const body = cert.isPrivate
      ? html`${statusNotice(ctx, cert, now, { reason: false })}
${privateCertificateCard(ctx, cert)}`
      : html`${statusNotice(ctx, cert, now)}
${certificateCard(ctx, cert, app.config.PUBLIC_URL, false)}`;
    return sendPage(reply, page(ctx, ctx.t.learn.certificate.title, body, { user }));
  };

  app.get(
    '/',
    {
      config: { public: true },
      schema: {
        hide: true,
        tags: ['pages'],
        querystring: z.object({ code: z.string().max(200).optional().catch(undefined) }),
        response: { 200: HtmlPage, 404: HtmlPage },
      },
    },
    async (request, reply) => show(request, reply, request.query.code?.trim()),
  );

  app.get(
    '/:code',
    {
      config: { public: true },
      schema: { hide: true, tags: ['pages'], params: z.object({ code: z.string().max(200) }), response: { 200: HtmlPage, 404: HtmlPage } },
    },
    async (request, reply) => show(request, reply, request.params.code),
  );
};

export default verificationPage;
