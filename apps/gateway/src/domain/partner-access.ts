import { readUnverifiedToken } from '@lms/partner-auth';
import { displayIp, type Partner, type PartnerRegistry } from './partners.js';

export type PartnerAccess = { ok: true; partner: Partner; issuer: string } | { ok: false; statusCode: 400 | 401 | 403; error: string };

/**
 * The gateway's one decision for every partner call (SSO and API): read `iss` from the unverified
 * token, find the partner, check the caller IP against its allowlist. The error texts are the
 * spec's gateway table. The signature is the LMS's business.
 */
export function decidePartnerAccess(registry: PartnerRegistry, token: unknown, ip: string | undefined): PartnerAccess {
  const read = readUnverifiedToken(token);
  if (!read.ok) return { ok: false, statusCode: 400, error: read.error };
  const decision = registry.checkAccess(read.issuer, ip);
  if (decision.ok) return { ok: true, partner: decision.partner, issuer: read.issuer };
  if (decision.reason === 'unknown_issuer') return { ok: false, statusCode: 401, error: `unknown issuer: ${read.issuer}` };
  return { ok: false, statusCode: 403, error: `IP ${displayIp(ip)} is not whitelisted for issuer ${read.issuer}` };
}
