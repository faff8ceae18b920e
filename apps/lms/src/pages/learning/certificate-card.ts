import type { Certificate } from '../../domain/learning/certificates.js';
import type { PageContext } from '../i18n/index.js';
import { href, html } from '../view/html.js';

/**
 * A certificate as both pages show it. The printable page (the holder's own) shows the
 * membership number; the public verification page does not (anyone with the code sees it).
 */
export function certificateCard(ctx: PageContext, cert: Certificate, publicUrl: string, own: boolean) {
  const { t, f } = ctx;
  const c = t.learn.certificate;
  const url = `${publicUrl.replace(/\/$/, '')}/certificates/${cert.code}`;
  return html`<section class="card certificate" aria-labelledby="certificate-title">
<h1 id="certificate-title">${c.title}</h1>
<p>${c.statement}</p>
<p><strong class="member">${cert.memberName}</strong></p>
<p>${c.completed}</p>
<p><strong class="course">${cert.courseName}</strong></p>
<dl>
${own && html`<dt>${c.membershipId}</dt><dd>${cert.membershipId ?? '—'}</dd>`}
<dt>${c.kum}</dt><dd>${cert.kum === null ? '—' : f.number(cert.kum)}</dd>
<dt>${c.issuedOn}</dt><dd>${f.day(cert.issuedAt) ?? ''}</dd>
${cert.institutionName && html`<dt>${c.institution}</dt><dd>${cert.institutionName}</dd>`}
<dt>${c.code}</dt><dd><code>${cert.code}</code></dd>
</dl>
<p>${c.verifyAt} <a href="${href('/certificates', cert.code)}">${url}</a></p>
</section>`;
}
