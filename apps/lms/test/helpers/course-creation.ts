import type { Db } from '@lms/db';
import { TEST_GATEWAY_SECRET } from '../../src/testing.js';
import { makeInstitution, makeUser } from './fixtures.js';
import { makePartnerKey, type PartnerKey, registerPartner, ssoToken } from './sso.js';

export { TEST_GATEWAY_SECRET };

/** A partner allowed to create courses: a PEM key, an institution bound to it, a teacher of it. */
export interface CourseCreator {
  issuer: string;
  key: PartnerKey;
  institutionId: number;
  teacherId: string;
  /** A fresh bearer token (new jti) signed at `nowSeconds` (default: the real clock). */
  token(nowSeconds?: number, overrides?: Record<string, unknown>): string;
  /** A valid creation body with this name. */
  body(name: string): { institutionId: number; teacherId: string; name: string };
}

export async function makeCourseCreator(db: Db, issuer: string): Promise<CourseCreator> {
  const key = await makePartnerKey(`${issuer}-1`);
  const institutionId = await makeInstitution(db, `Institution of ${issuer}`);
  await registerPartner(db, { issuer, pemKeys: [key], institutionIds: [institutionId] });
  const teacher = await makeUser(db, { role: 'teacher', institutionId });
  return {
    issuer,
    key,
    institutionId,
    teacherId: teacher.id,
    token: (nowSeconds = Math.floor(Date.now() / 1000), overrides = {}) =>
      // A bearer token: the SSO claims without the member's e-mail and membership id.
      ssoToken(key, issuer, nowSeconds, { email: undefined, membershipId: undefined, name: undefined, ...overrides }),
    body: (name) => ({ institutionId, teacherId: teacher.id, name }),
  };
}

/** The headers of a creation as the gateway forwards it. */
export function creationHeaders(token: string, idempotencyKey?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-gateway-secret': TEST_GATEWAY_SECRET,
    authorization: `Bearer ${token}`,
    ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
  };
}
