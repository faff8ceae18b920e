import { partnerClaims, signPartnerToken } from '@lms/partner-auth/testing';
import { BENCH_ISSUER, type RunFixtures } from './fill.js';

/** Tokens signed before a run (signing is the partner's cost, not ours), handed out one per request. */
export class TokenPool {
  private tokens: string[] = [];
  private next = 0;
  constructor(
    private readonly fixtures: RunFixtures,
    private readonly claims: (i: number) => Record<string, unknown>,
  ) {}
  get remaining() {
    return this.tokens.length - this.next;
  }
  async fill(count: number) {
    const now = Math.floor(Date.now() / 1000);
    const start = this.tokens.length;
    const batch = await Promise.all(
      Array.from({ length: count }, (_, k) => signPartnerToken(this.fixtures, partnerClaims(BENCH_ISSUER, this.claims(start + k), now))),
    );
    this.tokens.push(...batch);
  }
  take(): string {
    // Running out shows as unexpected answers (a reused token is refused), never as a crash.
    return this.tokens[Math.min(this.next++, this.tokens.length - 1)];
  }
  /** At least `count` unused tokens (signed between repetitions, outside the measured time). */
  async ensure(count: number) {
    this.tokens = this.tokens.slice(this.next);
    this.next = 0;
    if (this.tokens.length < count) await this.fill(count - this.tokens.length);
  }
}
