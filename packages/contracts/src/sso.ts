import { z } from 'zod';
import { text } from './text.js';

/**
 * `?token=` of the SSO hand-off. Anything is accepted here (a repeated parameter too): the
 * token's rules are checked by the verifier, which answers with a redirect, never a 400.
 */
export const SsoTokenQuery = z.object({
  token: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('The partner-signed RS256 JWT (see the spec: SSO JWT)'),
  proof: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe(
      "The gateway's proof that the token came through it (`<exp>.<HMAC>`, bound to the token, valid 120 s), as the " +
        "gateway's redirect gave it. Without a valid one the sign-in is refused.",
    ),
});

/** The codes of `/sign-in?error=` (docs/architecture.md, "Sign-in errors"). */
export const SsoErrorCode = z.enum(['missing_token', 'invalid_token', 'sso_failed']);
export type SsoErrorCode = z.infer<typeof SsoErrorCode>;

/** A person's page: a repeated parameter is read as its first value rather than answered with a 400. */
const firstValue = z.union([text(), z.array(text())]).transform((v) => (Array.isArray(v) ? v[0] : v));

export const SignInQuery = z.object({
  error: firstValue.optional().describe('missing_token, invalid_token or sso_failed'),
  reason: firstValue.optional().describe('The underlying validation failure'),
});

/** A redirect: no body, the target is in `Location`. */
export const RedirectResponse = z.null().describe('No body; the target is in the Location header');

export const HtmlPage = z.string().describe('An HTML page');

export const SignOutResponse = z.object({ success: z.literal(true) }).meta({ id: 'SignOutResponse' });
export type SignOutResponse = z.infer<typeof SignOutResponse>;
