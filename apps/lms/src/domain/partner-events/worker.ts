import type { Db } from '@lms/db';
import { type AttemptOutcome, attemptDelivery, claimDue, type DeliverySettings } from './delivery.js';

// The scheduler of partner-event sends in one instance (docs/architecture.md, "One slow partner
// delays nobody"). It claims as many due deliveries as it has free slots, at most `perEndpoint`
// of one endpoint counting its sends in flight, and starts each send without waiting for the
// others: a send that hangs holds its own slot until its deadline (WEBHOOK_TIMEOUT_MS), never a
// round. When a send ends it claims again at once if more may be due; otherwise it looks every
// `pollMs`. Claiming is serial (one claim statement at a time per instance); sending is not.
// A job queue can take its place later: claimDue + attemptDelivery are the job and its handler.

export interface DeliveryWorkerOptions {
  db: Db;
  settings: DeliverySettings;
  clock: () => Date;
  /** Sends in flight at once in this instance. */
  concurrency: number;
  /** Sends in flight at once to one endpoint. */
  perEndpoint: number;
  /** After each attempt (metrics, tests). */
  onAttempt: (outcome: AttemptOutcome) => void;
  /** A claim or a record that failed (logged; the next look tries again, the lease frees the row). */
  onError: (err: unknown, deliveryId?: number) => void;
}

export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  /** Sends in flight by endpoint id. */
  private readonly busy = new Map<number, number>();
  /** The claims, one after the other. */
  private chain: Promise<unknown> = Promise.resolve();
  private kickQueued = false;
  /** The last claim took every free slot: more may be due. */
  private lastFull = false;
  /** Endpoints that got all the room they had at their last claim: more of theirs may be due. */
  private readonly mayHaveMore = new Set<number>();
  private polling = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly o: DeliveryWorkerOptions) {}

  /** Claims what fits in the free slots and starts sending it; resolves, once claimed, to the sends started. */
  fill(): Promise<Array<Promise<void>>> {
    const run = this.chain.then(() => this.claimAndStart());
    this.chain = run.catch(() => {});
    return run;
  }

  /** One look and every send it started, awaited (tests, and the bench's direct calls): how many were attempted. */
  async round(): Promise<number> {
    const started = await this.fill();
    await Promise.allSettled(started);
    return started.length;
  }

  /** Looks for due deliveries every `pollMs` (and at once when a send ends and more may be due). */
  start(pollMs: number): void {
    this.polling = true;
    const tick = async () => {
      this.timer = null;
      try {
        await this.fill();
      } catch (err) {
        this.o.onError(err);
      } finally {
        if (!this.stopped) {
          this.timer = setTimeout(tick, pollMs);
          this.timer.unref();
        }
      }
    };
    this.timer = setTimeout(tick, 0);
    this.timer.unref();
  }

  /** No new claim; the claim under way and the sends in flight are awaited (each bounded by its deadline). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.chain;
    await Promise.allSettled([...this.inFlight]);
  }

  /** Sends in flight now (all endpoints). */
  get sending(): number {
    return this.inFlight.size;
  }

  private async claimAndStart(): Promise<Array<Promise<void>>> {
    this.kickQueued = false;
    const free = this.o.concurrency - this.inFlight.size;
    if (this.stopped || free <= 0) return [];
    const roomAtClaim = new Map([...this.busy].map(([id, n]) => [id, Math.max(0, this.o.perEndpoint - n)]));
    const claimed = await claimDue(this.o.db, this.o.clock(), free, this.o.settings.leaseMs, {
      max: this.o.perEndpoint,
      busy: this.busy,
    });
    this.lastFull = claimed.length === free;
    // Which endpoints may have more due than they got: those given their whole room. One that got
    // less has no more due now; one not in the answer had none, unless it had no room (then its
    // flag stays) or the claim was cut by the free slots (then nothing is known: lastFull).
    const got = new Map<number, number>();
    for (const c of claimed) got.set(c.endpointId, (got.get(c.endpointId) ?? 0) + 1);
    for (const [id, n] of got) {
      if (n >= (roomAtClaim.get(id) ?? this.o.perEndpoint)) this.mayHaveMore.add(id);
      else this.mayHaveMore.delete(id);
    }
    if (!this.lastFull) {
      for (const id of this.mayHaveMore) if (!got.has(id) && (roomAtClaim.get(id) ?? this.o.perEndpoint) > 0) this.mayHaveMore.delete(id);
    }
    return claimed.map((c) => {
      this.busy.set(c.endpointId, (this.busy.get(c.endpointId) ?? 0) + 1);
      const p: Promise<void> = attemptDelivery(this.o.db, c, this.o.settings, this.o.clock)
        .then((outcome) => this.o.onAttempt(outcome))
        .catch((err) => this.o.onError(err, c.deliveryId))
        .finally(() => {
          this.inFlight.delete(p);
          const left = (this.busy.get(c.endpointId) ?? 1) - 1;
          if (left > 0) this.busy.set(c.endpointId, left);
          else this.busy.delete(c.endpointId);
          // More may be due (this endpoint's next ones waited for this slot, or the last claim
          // filled every slot): look again now rather than at the next poll.
          if (this.lastFull || this.mayHaveMore.has(c.endpointId)) this.kick();
        });
      this.inFlight.add(p);
      return p;
    });
  }

  /** A claim soon, unless one is already queued (only while polling: tests calling round() stay in control). */
  private kick(): void {
    if (!this.polling || this.stopped || this.kickQueued) return;
    this.kickQueued = true;
    this.fill().catch((err) => this.o.onError(err));
  }
}
