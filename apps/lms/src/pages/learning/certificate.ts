import { LearningCourseIdParams } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findOwnCertificate, setCertificatePrivacy } from '../../domain/learning/certificates.js';
import { certificateFileName, certificatePdf } from '../../documents/certificate-pdf.js';
import { NotFoundError } from '../../errors.js';
import { sendPage } from '../send.js';
import { pageSession } from '../session.js';
import { href, html } from '../view/html.js';
import { page } from '../view/layout.js';
import { certificateCard, statusNotice } from './certificate-card.js';
import { learnScope } from './learn-scope.js';
import { formOptions, PAGE, pageOptions, seeOther, signedIn } from '../page-route.js';

/** The printable page's flash after the privacy form (anything else: none). */
const PrivacyFlash = z.object({ privacy: z.literal('saved').optional().catch(undefined) }).passthrough();
/** The privacy form: `private` or `public`; anything else is a 404 page (the schema), nothing changed. */
const PrivacyForm = z.object({ visibility: z.enum(['private', 'public']) });

/** The learner's own certificate (/learn/certificates/:id): the printable page, its PDF, and its privacy form. */
const certificatePages: FastifyPluginAsyncZod = async (app) => {
  learnScope(app);

  app.get(
    '/certificates/:id',
    // A course id past the int4 range is a 404 page (the schema bounds it), not a failed statement.
    pageOptions({ params: LearningCourseIdParams, querystring: PrivacyFlash }),
    async (request, reply) => {
      const { session, ctx } = await signedIn(app, request);
      const { t } = ctx;
      const d = t.certificateDocs;
      const courseId = request.params.id;
      const cert = await findOwnCertificate(app.db, session.caller.userId, courseId);
      if (!cert) throw new NotFoundError('Certificate not found');
      // The holder's choice, a plain form (works without JavaScript); not printed.
      const privacy = html`<section class="card no-print" aria-labelledby="privacy-title" id="privacy"><h2 id="privacy-title">${d.privacy.title}</h2>
${request.query.privacy === 'saved' && html`<p class="success" role="status">${d.privacy.saved}</p>`}
<p>${cert.isPrivate ? d.privacy.isPrivate : d.privacy.isPublic}</p>
<form method="post" action="${href('/learn/certificates', courseId, 'privacy')}">
<input type="hidden" name="visibility" value="${cert.isPrivate ? 'public' : 'private'}">
<button type="submit">${cert.isPrivate ? d.privacy.makePublic : d.privacy.makePrivate}</button>
</form></section>`;
      const body = html`<div class="no-print">${statusNotice(ctx, cert, app.clock())}</div>
${certificateCard(ctx, cert, app.config.PUBLIC_URL, true)}
<p class="no-print"><a href="${href('/learn/certificates', courseId, 'pdf')}" download>${d.downloadPdf}</a></p>
<p class="credential-download no-print"><a href="${href('/api/learning/certificates', cert.code, 'credential')}" download="certificate-${cert.code}.jwt">${t.learn.certificate.credential}</a>
<span class="muted">${t.learn.certificate.credentialHint}</span></p>
<p class="muted no-print">${t.learn.certificate.print}</p>
${privacy}`;
      return sendPage(reply, page(ctx, t.learn.certificate.title, body, { user: session.user }));
    },
  );

  app.get(
    '/certificates/:id/pdf',
    // Only the holder's own, as the printable page: another person's course id is a 404 page, no session a redirect to sign-in.
    // No response schema: the bytes go out as they are (a Buffer is never serialized).
    { config: { auth: true, documentLimited: true }, schema: { ...PAGE, params: LearningCourseIdParams } },
    async (request, reply) => {
      const { session, ctx } = await signedIn(app, request);
      const cert = await findOwnCertificate(app.db, session.caller.userId, request.params.id);
      if (!cert) throw new NotFoundError('Certificate not found');
      const bytes = await certificatePdf(cert, { lang: ctx, publicUrl: app.config.PUBLIC_URL, now: app.clock() });
      const name = certificateFileName(cert, ctx.t.certificateDocs.pdf.fileStem);
      return reply
        .type('application/pdf')
        .header('cache-control', 'no-store')
        .header('vary', 'Accept-Language, Cookie')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(bytes);
    },
  );

  app.post('/certificates/:id/privacy', formOptions({ params: LearningCourseIdParams, body: PrivacyForm }), async (request, reply) => {
    const session = await pageSession(app, request);
    const courseId = request.params.id;
    // The holder's own certificate of that course (the one the printable page shows), or a 404 page.
    const cert = await findOwnCertificate(app.db, session.caller.userId, courseId);
    if (!cert) throw new NotFoundError('Certificate not found');
    await setCertificatePrivacy(app.db, session.caller.userId, cert.id, request.body.visibility === 'private');
    return seeOther(reply, `/learn/certificates/${courseId}?privacy=saved#privacy`);
  });
};

export default certificatePages;
