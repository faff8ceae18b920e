import fp from 'fastify-plugin';
import { type MemberCheckAnswer, memberChecker } from '../domain/member-check.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Asks the partner (if it registered a member check) whether the member is active; cached per the partner's TTL. */
    memberCheck(issuer: string, membershipId: string): Promise<MemberCheckAnswer>;
  }
}

export interface MemberCheckOptions {
  /** How long a partner's member-check settings are kept (default 30 s, as the partner key registry's). */
  settingsTtlMs?: number;
}

/** The member check at sign-in (domain/member-check.ts), with its per-instance cache. */
export default fp<MemberCheckOptions>(
  async (app, opts) => {
    const check = memberChecker(app.db, {
      policy: app.outboundPolicy,
      issuer: app.config.PUBLIC_URL,
      now: app.clock,
      settingsTtlMs: opts.settingsTtlMs,
    });
    app.decorate('memberCheck', check);
  },
  { name: 'member-check', dependencies: ['database', 'partner-events'] },
);
