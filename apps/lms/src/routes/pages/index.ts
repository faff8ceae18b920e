import { HtmlPage, RedirectResponse, SignInQuery } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { loadDashboard } from '../../domain/sso.js';
import { escapeHtml, page } from './html.js';

const AGAIN = "Please go back to your organisation's website and sign in again.";

/**
 * The sign-in error explained to a person. `reason` is the technical text of the redirect
 * (DESIGN §5); it is matched by its stable parts, since some reasons name an issuer or a kid.
 */
export function explainSignInError(code: string | undefined, reason: string | undefined): string | null {
  if (!code) return null;
  if (code === 'missing_token') return `The sign-in link was incomplete: it did not carry a sign-in token. ${AGAIN}`;
  const r = reason ?? '';
  if (code === 'sso_failed') {
    switch (r) {
      case 'missing_email':
        return 'Your organisation did not send your e-mail address, which we need to open your account. Please contact your organisation.';
      case 'missing_membership_id':
        return 'Your organisation did not send your membership number, which we need to open your account. Please contact your organisation.';
      case 'member_inactive':
        return 'Your account is not active at the moment, so you cannot sign in. Please contact your organisation or our support.';
      case 'account_creation_failed':
        return 'We could not open your account just now. Please try again in a few minutes.';
      case 'session_creation_failed':
        return 'We could not sign you in just now. Please try again in a few minutes.';
      default:
        return `Signing in did not work. ${AGAIN}`;
    }
  }
  if (r.includes('"exp" claim') || r.includes('"iat" claim timestamp')) {
    return `The sign-in link has expired (links work for a few minutes only), or your organisation's clock is off. ${AGAIN}`;
  }
  if (r.includes('already been used')) return `This sign-in link has already been used; each link works once. ${AGAIN}`;
  if (r.startsWith('Unsupported SSO issuer')) return 'Your organisation is not registered for signing in here. Please contact your organisation.';
  if (r.startsWith('No public key or JWKS URL') || r.startsWith('The JWKS of') || r.startsWith('No key with kid')) {
    return "We could not check your organisation's signature on the sign-in link (its keys are not available to us right now). Please try again later or contact your organisation.";
  }
  if (r.includes('lifetime')) return `The sign-in link was issued for too long a time and was refused. ${AGAIN}`;
  if (r === 'signature verification failed') return `The sign-in link's signature is not valid. ${AGAIN}`;
  if (r.includes('"aud" claim')) return `The sign-in link was not meant for this site. ${AGAIN}`;
  return `The sign-in link is not valid. ${AGAIN}`;
}

const TIER_LABELS: Record<string, string> = { anggota: 'Anggota (member)', umum: 'Umum (general public)', mahasiswa: 'Mahasiswa (student)' };

/** The sign-in landing page (errors of SSO) and the signed-in dashboard, as plain server-rendered HTML. */
const pageRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/sign-in',
    {
      // HTML for people, not part of the JSON API description.
      schema: {
        hide: true,
        tags: ['pages'],
        summary: 'Sign-in page; explains an SSO failure (`error`, `reason`) in plain words',
        querystring: SignInQuery,
        response: { 200: HtmlPage },
      },
    },
    async (request, reply) => {
      const { error, reason } = request.query;
      const explanation = explainSignInError(error, reason);
      const errorBlock = explanation
        ? `<div class="error" role="alert"><p>${escapeHtml(explanation)}</p>${
            reason ? `<details><summary>Technical detail</summary><p><code>${escapeHtml(reason)}</code></p></details>` : ''
          }</div>`
        : '';
      const body = `<main>
<h1>Sign in</h1>
${errorBlock}
<p>Members sign in through their organisation: open your organisation's website, sign in there, and follow its link to the courses. You will land on your dashboard.</p>
</main>`;
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page('Sign in', body));
    },
  );

  app.get(
    '/dashboard',
    {
      // HTML for people, not part of the JSON API description.
      schema: {
        hide: true,
        tags: ['pages'],
        summary: 'The signed-in user and their courses; 302 to `/sign-in` without a valid session',
        response: { 200: HtmlPage, 302: RedirectResponse },
      },
    },
    async (request, reply) => {
      const token = request.cookies[app.sessionCookieName];
      if (!token) return reply.redirect('/sign-in', 302);
      try {
        await app.authenticate(request, reply);
      } catch {
        return reply.redirect('/sign-in', 302);
      }
      if (request.caller?.kind !== 'session') return reply.redirect('/sign-in', 302);
      const view = await loadDashboard(app.db, request.caller.userId);
      if (!view) return reply.redirect('/sign-in', 302);
      const { user } = view;
      const courseList =
        view.courses.length === 0
          ? '<p class="muted">You are not enrolled in any course yet.</p>'
          : `<table>
<caption class="muted">Your courses</caption>
<thead><tr><th scope="col">Course</th><th scope="col">Chapters done</th><th scope="col">Progress</th></tr></thead>
<tbody>
${view.courses
  .map(
    (c) =>
      `<tr><td>${escapeHtml(c.name)}</td><td>${c.completedChapters} / ${c.chapterCount}</td>` +
      `<td><progress max="100" value="${c.progressPercent}" aria-label="${escapeHtml(c.name)} progress">${c.progressPercent}%</progress> ${c.progressPercent}%</td></tr>`,
  )
  .join('\n')}
</tbody>
</table>`;
      const body = `<header><h1>Welcome, ${escapeHtml(user.name)}</h1></header>
<main>
<section aria-labelledby="profile">
<h2 id="profile">Your account</h2>
<dl>
<dt>Name</dt><dd>${escapeHtml(user.name)}</dd>
<dt>E-mail</dt><dd>${escapeHtml(user.email)}</dd>
<dt>Tier</dt><dd>${escapeHtml(user.tier ? (TIER_LABELS[user.tier] ?? user.tier) : 'none')}</dd>
<dt>Membership ID</dt><dd>${escapeHtml(user.membershipId ?? 'none')}</dd>
</dl>
</section>
<section aria-labelledby="courses">
<h2 id="courses">Your courses</h2>
${courseList}
</section>
<form method="post" action="/api/auth/sign-out"><button type="submit">Sign out</button></form>
</main>`;
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page('Dashboard', body));
    },
  );
};

export default pageRoutes;
