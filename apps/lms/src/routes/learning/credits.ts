import { ErrorResponse, MemberCreditsResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { isCounted, type MemberCredits, memberCredits } from '../../domain/learning/credits.js';
import { commonErrors, sessionLearner } from './learner.js';
import { sessionOnly } from './session-only.js';

/** A member's credits as the API writes them (dates in ISO 8601). */
export function creditsJson(credits: MemberCredits, timeZone: string) {
  return {
    success: true as const,
    timeZone,
    records: credits.records.map(recordJson),
    yearTotals: credits.yearTotals,
    rollingTotals: credits.rollingTotals.map((t) => ({ ...t, from: t.from.toISOString() })),
    targets: credits.targets.map((t) => ({ ...t, from: t.from.toISOString() })),
  };
}

export function recordJson(r: MemberCredits['records'][number]) {
  return {
    id: r.id,
    courseId: r.courseId,
    courseName: r.courseName,
    scheme: r.scheme,
    amount: r.amount,
    earnedAt: r.earnedAt.toISOString(),
    certificateCode: r.certificateCode,
    certificateStatus: r.certificateStatus,
    voided: r.voidedAt !== null,
    voidedAt: r.voidedAt?.toISOString() ?? null,
    accreditation: r.accreditation,
    counted: isCounted(r),
  };
}

/** The caller's own credit record: there is no member id in the URL, only the session's. */
const creditRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/learning/credits',
    {
      config: { auth: sessionOnly() },
      schema: {
        tags: ['Learning'],
        operationId: 'getMyCredits',
        summary: "The caller's credit record: every KUM/SKP earned, totals per year and rolling, target progress",
        description:
          'For any signed-in person (session cookie); an API key gets 403, no credentials 401. One record per ' +
          'certificate with points (its course, scheme, amount, the day it was earned, its verification code); a ' +
          'revoked certificate voids its record (listed with `voided: true`, never counted; a reissue counts again, ' +
          'on the new certificate, with the original date). Years and rolling windows are calendar days of the ' +
          "deployment's time zone (`timeZone`). `targets`: the credit targets of the partners the caller belongs to " +
          '(`lms-admin partner credit-target`), each with what is earned in its period.',
        security: [{ session: [] }],
        response: { 200: MemberCreditsResponse, 403: ErrorResponse.describe('An API key'), ...commonErrors },
      },
    },
    async (request) => {
      const zone = app.config.PAGES_TIME_ZONE;
      return creditsJson(await memberCredits(app.db, sessionLearner(request), app.clock(), zone), zone);
    },
  );
};

export default creditRoutes;
