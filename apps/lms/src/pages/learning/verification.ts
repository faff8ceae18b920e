import { HtmlPage } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findCertificateByCode } from '../../domain/learning/certificates.js';
import { NotFoundError } from '../../errors.js';
import { fill, pageContext } from '../i18n/index.js';
import { sendPage } from '../send.js';
import { optionalSession } from '../session.js';
import { html } from '../view/html.js';
import { page } from '../view/layout.js';
import { certificateCard } from './certificate-card.js';

/**
 * GET /certificates/{code}: the public verification page, no session needed. A forged or unknown
 * code is the 404 page; a code of the wrong shape is not even looked up, a well-formed one costs
 * one unique-index lookup whether it exists or not.
 */
const verificationPage: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/:code',
    { schema: { hide: true, tags: ['pages'], params: z.object({ code: z.string().max(200) }), response: { 200: HtmlPage } } },
    async (request, reply) => {
      const ctx = pageContext(app, request);
      const cert = await findCertificateByCode(app.db, request.params.code);
      if (!cert) throw new NotFoundError('Certificate not found');
      const status = cert.revokedAt
        ? html`<div class="error" role="alert"><p>${fill(ctx.t.learn.certificate.revoked, { date: ctx.f.day(cert.revokedAt) ?? '', reason: cert.revokedReason ?? '' })}</p></div>`
        : html`<div class="success" role="status"><p>${ctx.t.learn.certificate.valid}</p></div>`;
      const body = html`${status}
${certificateCard(ctx, cert, app.config.PUBLIC_URL, false)}`;
      return sendPage(reply, page(ctx, ctx.t.learn.certificate.title, body, { user: await optionalSession(app, request) }));
    },
  );
};

export default verificationPage;
