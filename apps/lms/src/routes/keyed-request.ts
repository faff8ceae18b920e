import { CLOCK_TOLERANCE_SECONDS, type VerifiedBearerToken } from '@lms/partner-auth';
import type { Db } from '@lms/db';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type CreationWork, hashRequestBody, runIdempotent, runInCreationTransaction, type StoredResponse } from '../domain/idempotency.js';
import { spendTokenId } from '../domain/partner-tokens.js';
import { BadRequestError, UnauthorizedError } from '../errors.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Spends a partner's bearer token, in the transaction of what it was used for: a token works
 * once (401 the second time), and a crash before the commit leaves it unspent with the rest.
 */
export async function spendPartnerToken(tx: Db, token: VerifiedBearerToken): Promise<void> {
  const keepUntil = new Date((token.expiresAt + CLOCK_TOLERANCE_SECONDS) * 1000);
  if ((await spendTokenId(tx, token.issuer, token.jti, keepUntil)).length === 0) {
    throw new UnauthorizedError('Token has already been used.');
  }
}

/**
 * Runs a request's `work` in one transaction (domain errors under 500 become its answer), once per
 * `Idempotency-Key` of `scope` when the request carries one: the claim of the key, the work and
 * its kept answer commit together (domain/idempotency.ts), and a retry with the key replays the
 * answer with `Idempotency-Replayed: true`. `requestBody` is what a reused key must match.
 *
 * A partner's `token` is spent in that transaction, whether the work is done or a kept answer is
 * replayed: every request, a retry too, needs a token never used before (the spec's `jti`, "one
 * use each"), so a used token replayed with its key is a 401, not the kept answer.
 */
export async function runKeyedRequest(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  args: { scope: string; requestBody: unknown; work: CreationWork; token?: VerifiedBearerToken },
): Promise<StoredResponse & { replayed: boolean }> {
  const key = request.headers['idempotency-key'];
  if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))) {
    throw new BadRequestError('Idempotency-Key must be 1 to 255 visible ASCII characters');
  }
  const { token } = args;
  const spend = token ? (tx: Db) => spendPartnerToken(tx, token) : undefined;
  const work: CreationWork = spend
    ? async (tx) => {
        await spend(tx);
        return args.work(tx);
      }
    : args.work;
  const result =
    key === undefined
      ? { ...(await runInCreationTransaction(app.db, work)), replayed: false }
      : await app.metrics.countIdempotent(
          runIdempotent(
            app.db,
            { issuer: args.scope, key, requestHash: hashRequestBody(args.requestBody), now: app.clock(), beforeReplay: spend },
            work,
          ),
        );
  if (result.replayed) reply.header('idempotency-replayed', 'true');
  return result;
}
