import fp from 'fastify-plugin';
import { type MemberCheckAnswer, memberChecker } from '../domain/member-check.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Asks the partner (if it registered a member check) whether the member is active; cached per the partner's TTL. */
    memberCheck(issuer: string, membershipId: string): Promise<MemberCheckAnswer>;
  }
}

/** The member check at sign-in (domain/member-check.ts), with its per-instance cache. */
export default fp(
  async (app) => {
    const check = memberChecker(app.db, {
      policy: app.outboundPolicy,
      issuer: app.config.PUBLIC_URL,
      now: app.clock,
    });
    app.decorate('memberCheck', check);
  },
  { name: 'member-check', dependencies: ['database', 'partner-events'] },
);
