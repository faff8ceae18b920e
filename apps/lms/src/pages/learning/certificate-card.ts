import { certificateUrl } from '../../documents/certificate-pdf.js';
import { type Certificate, certificateStatus } from '../../domain/learning/certificates.js';
import type { PageContext } from '../i18n/index.js';
import { type Html, href, html } from '../view/html.js';

/**
 * The certificate's status as a notice, by certificateStatus() (the one rule): valid, revoked
 * with its date (and its reason, unless `reason` is false: a private certificate's public page),
 * expired with its date.
 */
export function statusNotice(ctx: PageContext, cert: Certificate, now: Date, { reason = true } = {}): Html {
  const s = ctx.t.certificateDocs.status;
  switch (certificateStatus(cert, now)) {
    case 'revoked':
      return html`<div class="error" role="alert"><p><strong class="status-revoked">${s.revoked}</strong> · ${s.revokedText(cert.revokedAt, reason ? cert.revokedReason : null)}</p></div>`;
    case 'expired':
      return html`<div class="warning" role="alert"><p><strong class="status-expired">${s.expired}</strong> · ${s.expiredText(cert.expiresAt)}</p></div>`;
    default:
      return html`<div class="success" role="status"><p><strong class="status-valid">${s.valid}</strong> · ${s.validText}</p></div>`;
  }
}

/**
 * A certificate as both pages show it. The printable page (the holder's own) shows the
 * membership number; the public verification page does not (anyone with the code sees it), and
 * neither ever shows the e-mail.
 */
export function certificateCard(ctx: PageContext, cert: Certificate, publicUrl: string, own: boolean): Html {
  const { t, f } = ctx;
  const c = t.learn.certificate;
  const d = t.certificateDocs;
  const url = certificateUrl(publicUrl, cert.code);
  return html`<section class="card certificate" aria-labelledby="certificate-title">
<h1 id="certificate-title">${c.title}</h1>
<p>${c.statement}</p>
<p><strong class="member">${cert.memberName}</strong></p>
<p>${c.completed}</p>
<p><strong class="course">${cert.courseName}</strong></p>
<dl>
${own && html`<dt>${c.membershipId}</dt><dd>${cert.membershipId ?? '—'}</dd>`}
<dt>${d.creditsLabel}</dt><dd>${d.credits(cert.kum, cert.creditScheme)}</dd>
<dt>${c.issuedOn}</dt><dd>${f.day(cert.issuedAt) ?? ''}</dd>
${cert.expiresAt && html`<dt>${d.validUntil}</dt><dd>${f.day(cert.expiresAt) ?? ''}</dd>`}
${cert.institutionName && html`<dt>${c.institution}</dt><dd>${cert.institutionName}</dd>`}
<dt>${c.code}</dt><dd><code>${cert.code}</code></dd>
</dl>
<p>${c.verifyAt} <a href="${href('/certificates', cert.code)}">${url}</a></p>
</section>`;
}

/** What the public page shows of a certificate its holder keeps private: that it exists, its code; its status is the notice above it. */
export function privateCertificateCard(ctx: PageContext, cert: Certificate): Html {
  const { t } = ctx;
  return html`<section class="card certificate" aria-labelledby="certificate-title">
<h1 id="certificate-title">${t.learn.certificate.title}</h1>
<p>${t.certificateDocs.privateExists}</p>
<dl><dt>${t.learn.certificate.code}</dt><dd><code>${cert.code}</code></dd></dl>
</section>`;
}
