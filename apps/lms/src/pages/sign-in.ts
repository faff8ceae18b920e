import { HtmlPage, SignInQuery } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sendPage } from './send.js';
import { type Html, html } from './view/html.js';
import { page } from './view/layout.js';

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
      case 'email_in_use':
        return "An account with your e-mail address already exists here, but it is not connected to your organisation's sign-in, so you were not signed in to it and nothing about it was changed. If it is your account, ask our support to connect it to your organisation.";
      case 'account_creation_failed':
        return 'We could not open your account just now. Please try again in a few minutes.';
      case 'session_creation_failed':
        return 'We could not sign you in just now. Please try again in a few minutes.';
      case 'temporarily_unavailable':
        return "Signing in is briefly unavailable on our side; nothing is wrong with your account. Please try again in a minute from your organisation's website.";
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

/** GET /sign-in: where SSO failures land, explained in plain words; also where pages send the signed-out. */
const signInPage: FastifyPluginAsyncZod = async (app) => {
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
      return sendPage(reply, signInView(explainSignInError(error, reason), reason));
    },
  );
};

/** The sign-in page, with the explanation of a failed sign-in and its technical reason, if any. */
function signInView(explanation: string | null, reason: string | undefined): Html {
  const errorBlock =
    explanation &&
    html`<div class="error" role="alert"><p>${explanation}</p>${
      reason && html`<details><summary>Technical detail</summary><p><code>${reason}</code></p></details>`
    }</div>`;
  const body = html`<h1>Sign in</h1>
${errorBlock}
<div class="card"><p>Members sign in through their organisation: open your organisation's website, sign in there, and follow its link to the courses. You will land on your dashboard.</p></div>`;
  return page('Sign in', body);
}

export default signInPage;
