import { HtmlPage, SignInQuery } from '@lms/contracts';
import { Reasons } from '@lms/partner-auth';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type Messages, type PageContext, pageContext } from '../i18n/index.js';
import { sendPage } from '../send.js';
import { type Html, href, html } from '../view/html.js';
import { page } from '../view/layout.js';

/** The sign-in problems the pages can explain: the keys of the catalog's `signIn.problems`. */
export type SignInProblem = keyof Messages['signIn']['problems'];

/**
 * Which problem a failed sign-in had, from the code and `reason` of its redirect
 * (docs/architecture.md, "Sign-in errors"). `reason` is technical text, matched by its stable
 * parts, since some reasons name an issuer or a kid. Null when nothing failed.
 */
export function signInProblem(code: string | undefined, reason: string | undefined): SignInProblem | null {
  if (!code) return null;
  if (code === 'missing_token') return 'missingToken';
  const r = reason ?? '';
  if (code === 'sso_failed') {
    switch (r) {
      case 'missing_email':
        return 'missingEmail';
      case 'missing_membership_id':
        return 'missingMembershipId';
      case 'member_inactive':
        return 'memberInactive';
      case 'email_in_use':
        return 'emailInUse';
      case 'account_creation_failed':
        return 'accountCreationFailed';
      case 'session_creation_failed':
        return 'sessionCreationFailed';
      case 'temporarily_unavailable':
        return 'temporarilyUnavailable';
      default:
        return 'failed';
    }
  }
  if (r.includes('"exp" claim') || r.includes('"iat" claim timestamp')) return 'expired';
  if (r.includes('already been used')) return 'alreadyUsed';
  if (r.startsWith('Unsupported SSO issuer')) return 'unknownOrganisation';
  if (r.startsWith('No public key or JWKS URL') || r.startsWith('The JWKS of') || r.startsWith('No key with kid')) return 'keysUnavailable';
  if (r.includes('lifetime')) return 'tooLongLived';
  if (r === 'signature verification failed') return 'badSignature';
  if (r.includes('"aud" claim')) return 'wrongAudience';
  if (r.startsWith('The sign-in did not come through the gateway')) return 'notThroughGateway';
  if (r === Reasons.gatewayNotConfigured) return 'ssoNotConfigured';
  return 'invalid';
}

/** The sign-in error explained to a person, in their language (`messages`); null when nothing failed. */
export function explainSignInError(code: string | undefined, reason: string | undefined, messages: Messages): string | null {
  const problem = signInProblem(code, reason);
  return problem && messages.signIn.problems[problem];
}

/**
 * GET /sign-in: where SSO failures land, explained in plain words in the person's language
 * (the technical reason stays as it came, under "Technical detail"); also where pages send the
 * signed-out.
 */
const signInPage: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/sign-in',
    {
      config: { public: true },
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
      const ctx = pageContext(app, request);
      return sendPage(reply, signInView(ctx, explainSignInError(error, reason, ctx.t), reason));
    },
  );
};

/** The sign-in page, with the explanation of a failed sign-in and its technical reason, if any. */
function signInView(ctx: PageContext, explanation: string | null, reason: string | undefined): Html {
  const { t } = ctx;
  const errorBlock =
    explanation &&
    html`<div class="error" role="alert"><p>${explanation}</p>${
      reason && html`<details><summary>${t.signIn.technicalDetail}</summary><p><code>${reason}</code></p></details>`
    }</div>`;
  const body = html`<h1>${t.signIn.title}</h1>
${errorBlock}
<div class="card"><p>${t.signIn.intro}</p></div>`;
  return page(ctx, t.signIn.title, body);
}

/**
 * The question a browser already signed in as someone else gets when it opens a partner's sign-in
 * link: continue as the link's person (a form posting the token and the gateway's proof back to the
 * callback, same-origin), or stay. Without it, anyone could hand a victim their own sign-in link
 * and have the victim work, unknowingly, in the attacker's account (login CSRF).
 */
export function switchAccountView(
  ctx: PageContext,
  current: { name: string },
  incoming: { name: string | null; email: string },
  sso: { token: string; proof: readonly string[] },
): Html {
  const t = ctx.t.switchAccount;
  const who = incoming.name ?? t.newAccount(incoming.email);
  const body = html`<h1>${t.title}</h1>
<div class="card">
<p>${t.current(current.name)}</p>
<p><strong>${t.incoming(who)}</strong></p>
<p class="muted">${t.why}</p>
<form method="post" action="${href('/api/auth/sso/callback')}">
<input type="hidden" name="token" value="${sso.token}">
${sso.proof.map((p) => html`<input type="hidden" name="proof" value="${p}">`)}
<button type="submit">${t.continue(who)}</button>
</form>
<p><a href="/dashboard">${t.stay(current.name)}</a></p>
</div>`;
  return page(ctx, t.title, body);
}

export default signInPage;
