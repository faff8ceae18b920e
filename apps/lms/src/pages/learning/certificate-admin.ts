import { MAX_ID, text } from '@lms/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type Certificate, CERTIFICATE_CODE, certificateStatus, findCertificateByCode } from '../../domain/learning/certificates.js';
import {
  assertRevokesCertificates,
  MAX_REVOCATION_REASON,
  reissueCertificate,
  revokeCertificate,
} from '../../domain/learning/certificate-revocation.js';
import { NotFoundError } from '../../errors.js';
import type { PageContext } from '../i18n/index.js';
import { pageSession } from '../session.js';
import { type Html, href, html } from '../view/html.js';
import { formOptions, formScope, seeOther } from '../page-route.js';

const CertificateParams = z.object({
  id: z.coerce.number().int().min(1).max(MAX_ID),
  // Any id the LMS makes (as the learner page: UUIDs, the synthetic seed's `<prefix>_<number>`).
  userId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  code: z.string().regex(CERTIFICATE_CODE),
});
/** Loose: a wrong reason is said on the page (`?certificate=reason-invalid`), not a 400. */
const AnyForm = z.object({}).passthrough().nullish();
const RevokeFields = z.object({ reason: text().trim().min(1).max(MAX_REVOCATION_REASON) });

export const CERTIFICATE_FLASHES = ['revoked', 'reissued', 'already', 'not-revoked', 'exists', 'reason-invalid'] as const;
export type CertificateFlash = (typeof CERTIFICATE_FLASHES)[number];

const flashKey = {
  revoked: 'revoked',
  reissued: 'reissued',
  already: 'already',
  'not-revoked': 'notRevoked',
  exists: 'exists',
  'reason-invalid': 'reasonInvalid',
} as const satisfies Record<CertificateFlash, string>;

export function certificateFlashOf(query: unknown): CertificateFlash | null {
  const v = (query as Record<string, unknown> | undefined)?.certificate;
  return (CERTIFICATE_FLASHES as readonly unknown[]).includes(v) ? (v as CertificateFlash) : null;
}

/**
 * The certificate part of a learner's page for the course's managers: each certificate of the
 * course (the one in force, the revoked ones) with its status; for those who may (a super_admin,
 * an admin of the course's institution: mayRevokeCertificates), the revoke form (a reason is
 * required, shown on the public page) on the one in force, the reissue button on a revoked one
 * when none is in force. The owner teacher sees the certificates and who may act.
 */
export function certificateSection(
  ctx: PageContext,
  input: { courseId: number; userId: string; certificates: Certificate[]; mayRevoke: boolean; flash: CertificateFlash | null; now: Date },
): Html {
  const { t } = ctx;
  const a = t.certificateDocs.admin;
  const s = t.certificateDocs.status;
  const { courseId, userId, certificates, mayRevoke, flash, now } = input;
  const base = (code: string, action: string) => href('/dashboard/courses', courseId, 'learners', userId, 'certificates', code, action);
  const inForce = certificates.some((c) => c.revokedAt === null);
  const bad = flash === 'reason-invalid' || flash === 'already' || flash === 'not-revoked' || flash === 'exists';
  const flashBox =
    flash && html`<p class="${bad ? 'error' : 'success'}" role="${bad ? 'alert' : 'status'}">${a.flash[flashKey[flash]]}</p>`;
  const item = (c: Certificate) => {
    const status = certificateStatus(c, now);
    const statusText =
      status === 'revoked' ? s.revokedText(c.revokedAt, c.revokedReason) : status === 'expired' ? s.expiredText(c.expiresAt) : s.validText;
    const revokeForm =
      mayRevoke &&
      c.revokedAt === null &&
      html`<form method="post" class="stack" action="${base(c.code, 'revoke')}">
<h3>${a.revokeTitle}</h3>
<label>${a.reason} <textarea name="reason" rows="3" maxlength="${MAX_REVOCATION_REASON}" required></textarea></label>
<p class="muted">${a.revokeWarning}</p>
<button type="submit" class="danger">${a.revoke}</button>
</form>`;
    const reissueForm =
      mayRevoke &&
      c.revokedAt !== null &&
      !inForce &&
      html`<form method="post" action="${base(c.code, 'reissue')}">
<p class="muted">${a.reissueHelp}</p>
<button type="submit">${a.reissue}</button>
</form>`;
    return html`<li class="certificate-admin">
<p><a href="${href('/certificates', c.code)}"><code>${c.code}</code></a> · ${a.issuedOn(c.issuedAt)}${c.reissuedFrom !== null && html` · ${a.reissued}`} · ${t.certificateDocs.credits(c.kum, c.creditScheme)}</p>
<p><strong class="status-${status}">${s[status]}</strong> · ${statusText}</p>
${revokeForm}${reissueForm}
</li>
`;
  };
  return html`<section class="card" aria-labelledby="certificate"><h2 id="certificate">${a.title}</h2>
${flashBox}
${certificates.length === 0 ? html`<p class="muted">${a.none}</p>` : html`<ul>${certificates.map(item)}</ul>`}
${certificates.length > 0 && !mayRevoke && html`<p class="muted">${a.notYours}</p>`}
</section>`;
}

/**
 * The admins' forms: revoke a certificate (with its reason) and reissue a revoked one, from the
 * course's learner page, back to it with 303 and the outcome (`?certificate=`). Who may is decided
 * first (assertRevokesCertificates: 403 for a teacher, even the owner, an admin of another
 * institution, a member; an API key has no page session), then the certificate must be that
 * learner's, of that course (else 404), then the reason is read: a missing, overlong (over 500)
 * or NUL-bearing reason changes nothing and says so. A larger body limit than the other forms: a
 * 500-character reason in Indonesian with diacritics is several kilobytes urlencoded, and one over
 * the limit is told on the page rather than as a 413.
 */
const certificateAdminForms: FastifyPluginAsyncZod = async (app) => {
  formScope(app, 64 * 1024);

  /**
   * Who acts, and the certificate the URL names: the caller must revoke for the course's
   * institution (decided before the form is read), and the code must be this learner's certificate
   * of this course (another one is a 404 page).
   */
  const certificateToManage = async (request: FastifyRequest, params: z.infer<typeof CertificateParams>) => {
    const session = await pageSession(app, request);
    const { id: courseId, userId, code } = params;
    await assertRevokesCertificates(app.db, session.caller, courseId);
    const cert = await findCertificateByCode(app.db, code);
    if (!cert || cert.courseId !== courseId || cert.userId !== userId) throw new NotFoundError('Certificate not found');
    return { courseId, userId, code };
  };
  const back = (courseId: number, userId: string, flash: CertificateFlash) =>
    `/dashboard/courses/${courseId}/learners/${encodeURIComponent(userId)}?certificate=${flash}#certificate`;

  /** Each form's work on the certificate, and the outcome it says on the learner's page. */
  const actions: Record<'revoke' | 'reissue', (code: string, form: unknown) => Promise<CertificateFlash>> = {
    revoke: async (code, form) => {
      const fields = RevokeFields.safeParse(form ?? {});
      if (!fields.success) return 'reason-invalid';
      const result = await revokeCertificate(app.db, app.receipts.deliveries, code, fields.data.reason, app.clock());
      return result.outcome === 'revoked' ? 'revoked' : 'already';
    },
    reissue: async (code) => {
      const result = await reissueCertificate(app.db, app.receipts.deliveries, code, app.clock());
      if (result.outcome === 'unknown') throw new NotFoundError('Certificate not found');
      return result.outcome === 'reissued' ? 'reissued' : result.outcome === 'not_revoked' ? 'not-revoked' : 'exists';
    },
  };

  for (const [action, act] of Object.entries(actions)) {
    app.post(
      `/courses/:id/learners/:userId/certificates/:code/${action}`,
      formOptions({ params: CertificateParams, body: AnyForm }),
      async (request, reply) => {
        const { courseId, userId, code } = await certificateToManage(request, request.params);
        return seeOther(reply, back(courseId, userId, await act(code, request.body)));
      },
    );
  }
};

export default certificateAdminForms;
