import { ErrorResponse, PARTNER_CREDITS_LIMIT_DEFAULT, PartnerCreditsQuery } from '@lms/contracts';
import { type Db, inTransaction } from '@lms/db';
import type { FastifyRequest } from 'fastify';
import { type ZodType, z } from 'zod';
import { UnauthorizedError } from '../../errors.js';
import { spendPartnerToken } from '../keyed-request.js';

// What the partner's paged reads of its own members share (GET /api/partner/credits and
// /api/partner/evidence): the bearer-JWT route schema with its errors, and the read itself, which
// spends the token in the transaction that reads (a token works once, as for authoring).

/** The schema of a partner's paged member read: its own 200 body, the shared query and errors. */
export function partnerReadSchema<Ok extends ZodType>(o: { operationId: string; summary: string; description: string; ok: Ok }) {
  return {
    tags: ['partners'],
    operationId: o.operationId,
    summary: o.summary,
    description: o.description,
    security: [{ partnerBearer: [] }],
    headers: z.object({
      authorization: z.string().optional().meta({ description: "Bearer <the partner's course-creation JWT>" }),
    }),
    querystring: PartnerCreditsQuery,
    response: {
      200: o.ok,
      400: ErrorResponse.describe('A page, limit or membershipId out of its bounds'),
      401: ErrorResponse.describe('No token, an invalid or expired one, a sign-in token, or a replayed `jti`'),
      403: ErrorResponse.describe('Not through the gateway (no or a wrong gateway credential)'),
      503: ErrorResponse.describe('Partner calls are not enabled on this LMS (no GATEWAY_SECRET), or the database is unavailable'),
    },
  };
}

export interface PartnerPage {
  page: number;
  limit: number;
  membershipId: string | undefined;
}

/** Spends the request's partner token and runs `read` for its issuer in one transaction. */
export async function spendPartnerRead<T>(
  db: Db,
  request: Pick<FastifyRequest, 'partnerToken'> & { query: { page?: number; limit?: number; membershipId?: string } },
  read: (tx: Db, issuer: string, page: PartnerPage) => Promise<T>,
) {
  const token = request.partnerToken;
  if (!token) throw new UnauthorizedError('Authorization: Bearer <token> is required');
  const page = request.query.page ?? 1;
  const limit = request.query.limit ?? PARTNER_CREDITS_LIMIT_DEFAULT;
  const result = await inTransaction(db, async (tx) => {
    await spendPartnerToken(tx, token);
    return read(tx, token.issuer, { page, limit, membershipId: request.query.membershipId });
  });
  return { result, pagination: (total: number) => ({ page, limit, total, totalPages: Math.ceil(total / limit) }) };
}
