import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** At most `limit` requests in any `windowMs` interval `(now - windowMs, now]`. */
export interface RateLimitPolicy {
  limit: number;
  windowMs: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests still allowed right now, after this one. */
  remaining: number;
  /**
   * Milliseconds until the oldest request in the window leaves it and one unit of quota comes
   * back: the wait before the next request is allowed when refused (0 with an empty window).
   */
  resetMs: number;
}

/**
 * A true sliding window: a log of the accepted requests' timestamps per key. A request is allowed
 * when fewer than `limit` accepted requests lie in `(now - windowMs, now]`; it is then added to the
 * log. Refused requests are NOT logged: a client that is refused and keeps retrying is let in as
 * soon as its oldest accepted request leaves the window, which is what `Retry-After` promised it.
 * (Counting refusals would lock a retrying client out for ever and make `Retry-After` a lie.)
 */
export interface SlidingWindowStore {
  hit(key: string, nowMs: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

/** The store of one process: per key a sorted array of the accepted requests' times. */
export function memorySlidingWindowStore(policy: RateLimitPolicy, maxKeys = 100_000): SlidingWindowStore {
  const logs = new Map<string, number[]>();
  let lastSweepMs = 0;

  function sweep(nowMs: number) {
    for (const [key, log] of logs) if ((log.at(-1) ?? -Infinity) <= nowMs - policy.windowMs) logs.delete(key);
    lastSweepMs = nowMs;
  }

  return {
    async hit(key, nowMs) {
      // Forget keys that went quiet, once a window at most, so memory follows the active keys.
      if (nowMs - lastSweepMs >= policy.windowMs || logs.size >= maxKeys) sweep(nowMs);
      let log = logs.get(key);
      if (!log) {
        log = [];
        logs.set(key, log);
      }
      const horizon = nowMs - policy.windowMs;
      let expired = 0;
      while (expired < log.length && log[expired] <= horizon) expired += 1;
      if (expired > 0) log.splice(0, expired);
      const allowed = log.length < policy.limit;
      if (allowed) {
        // Keep the log sorted even if the clock stepped back.
        let at = log.length;
        while (at > 0 && log[at - 1] > nowMs) at -= 1;
        log.splice(at, 0, nowMs);
      }
      return decision(policy, allowed, log.length, log[0], nowMs);
    },
    async close() {
      logs.clear();
    },
  };
}

function decision(
  policy: RateLimitPolicy,
  allowed: boolean,
  count: number,
  oldestMs: number | undefined,
  nowMs: number,
): RateLimitDecision {
  return {
    allowed,
    remaining: Math.max(0, policy.limit - count),
    resetMs: oldestMs === undefined ? 0 : Math.max(0, oldestMs + policy.windowMs - nowMs),
  };
}

/**
 * One round trip, atomic: drop the entries that left the window, count, add this request when
 * under the limit, and report the count and the oldest entry. A sorted set scored by time; the
 * member is the time plus a random tag so that two requests in the same millisecond both count.
 */
const SLIDING_WINDOW_LUA = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  count = count + 1
  allowed = 1
end
if count > 0 then
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  -- Relative expiry: the times are the app's clock, which need not match the Redis server's.
  redis.call('PEXPIRE', key, math.max(1, tonumber(newest[2]) + window - now))
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
if oldest[2] then
  return {allowed, count, oldest[2]}
end
return {allowed, count, false}
`;

export interface RedisStoreOptions {
  url: string;
  /** Prefix of every key this store writes (tests use a unique one each). */
  keyPrefix: string;
  /** How long one command may take before the caller falls back (ms). */
  commandTimeoutMs?: number;
  /**
   * How long the first connection may take to come up before the store counts Redis as away
   * (ms, default 3000). Until then its state is unknown, and requests wait for it.
   */
  firstConnectionWaitMs?: number;
  /** Connection errors (ioredis emits them on every reconnect attempt while Redis is away). */
  onConnectionError?: (err: Error) => void;
}

/**
 * Where a shared store's connection stands: `up` (use it), `down` (known to be away: answer from
 * memory), or `unknown` (the first connection is still being opened, so nobody knows yet).
 */
export type ConnectionState = 'up' | 'down' | 'unknown';

/** A store other instances share, which can be away. */
export interface SharedSlidingWindowStore extends SlidingWindowStore {
  connection(): ConnectionState;
  /**
   * Resolves once the first connection is up or has failed, or once `firstConnectionWaitMs` has
   * passed (a Redis that accepts the connection and never answers), whichever comes first.
   */
  firstConnection(): Promise<void>;
}

type RedisWithScript = Redis & {
  slidingWindowHit(key: string, nowMs: number, windowMs: number, limit: number, member: string): Promise<[number, number, string | null]>;
};

/**
 * The store shared by every instance through Redis. Starts connecting at once; a command fails
 * after `commandTimeoutMs` or one reconnect attempt, so the caller can fall back instead of
 * waiting; while the connection is down the client reconnects in the background (backoff up to
 * 2 s). The first connection is not "down" while it opens: a new instance counting a spent key in
 * its own memory for those milliseconds would let a client through that the shared window
 * refuses, at every start, restart and scale-out, so `connection()` says `unknown` until the
 * first outcome. The time comes from the caller (the injected clock), so instances must keep
 * their clocks in sync (NTP), as they must for tokens anyway.
 */
export function redisSlidingWindowStore(policy: RateLimitPolicy, options: RedisStoreOptions): SharedSlidingWindowStore {
  const timeout = options.commandTimeoutMs ?? 250;
  const redis = new Redis(options.url, {
    lazyConnect: true,
    connectTimeout: Math.max(timeout * 2, 500),
    commandTimeout: timeout,
    maxRetriesPerRequest: 1,
    // Keep trying in the background, at most every 2 s; requests do not wait for it.
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  }) as RedisWithScript;
  redis.on('error', (err: Error) => options.onConnectionError?.(err));
  redis.defineCommand('slidingWindowHit', { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });

  let known = false;
  let markKnown!: () => void;
  const firstOutcome = new Promise<void>((resolve) => {
    markKnown = resolve;
  }).then(() => {
    known = true;
  });
  const bound = setTimeout(markKnown, options.firstConnectionWaitMs ?? 3_000);
  bound.unref();
  for (const event of ['ready', 'error', 'close', 'end']) redis.once(event, markKnown);
  void firstOutcome.then(() => clearTimeout(bound));
  // The outcome is read from the events above; a failed first attempt is retried in the background.
  redis.connect().catch(() => {});

  return {
    connection: () => (redis.status === 'ready' ? 'up' : known ? 'down' : 'unknown'),
    firstConnection: () => firstOutcome,
    async hit(key, nowMs) {
      const member = `${nowMs}-${randomBytes(6).toString('hex')}`;
      const [allowed, count, oldest] = await redis.slidingWindowHit(options.keyPrefix + key, nowMs, policy.windowMs, policy.limit, member);
      return decision(policy, allowed === 1, count, oldest === null ? undefined : Number(oldest), nowMs);
    },
    async close() {
      markKnown();
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}

export interface FallbackLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

/** When the limiter stops asking a failing Redis, and for how long. */
export interface CircuitOptions {
  /** Consecutive failed or timed-out Redis calls that open the circuit (default 3). */
  failureThreshold?: number;
  /** How long an open circuit answers from memory before one request probes Redis (default 5 s). */
  cooldownMs?: number;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

/** What the limiter did, for tests and (later) metrics. */
export interface FallbackStats {
  circuit: CircuitState;
  /** Requests that asked Redis and waited for its answer (or its timeout). */
  redisCalls: number;
  /** Of those, the ones that failed or timed out (each then answered from memory). */
  redisFailures: number;
  /** Requests answered from memory without asking Redis (connection down, circuit open). */
  memoryAnswers: number;
  /** How many times the circuit opened. */
  circuitOpenings: number;
}

/**
 * Uses `primary` (Redis) while it answers and `fallback` (this process's memory) otherwise: fails
 * open to a per-instance limit. While Redis is away each instance still allows at most `limit`
 * per key and window (so N instances allow at most N times the limit) and the catalog keeps
 * answering; refusing every API-key request because a shared counter is down would turn a cache
 * outage into a catalog outage.
 *
 * A request does not wait for a Redis that is known to be away:
 * - connection down (`primary.connection()` is `down`; the client reconnects in the background
 *   on its own backoff): memory at once. Before the first connection's outcome (`unknown`) the
 *   request waits for it, at most the store's `firstConnectionWaitMs`;
 * - a circuit breaker for a Redis that is connected but stalled (every command waits out its
 *   timeout): after `failureThreshold` consecutive failures the circuit opens and requests are
 *   answered from memory without asking Redis for `cooldownMs`; then one request probes Redis
 *   (half-open; the others keep using memory): if it answers, the circuit closes, otherwise it
 *   opens again. So a stall costs at most `failureThreshold` waits, then one per cooldown, not
 *   one per request. Time is the caller's (the injected clock).
 * A command that fails with the circuit closed falls back for that request only. A warning is
 * logged when memory starts being used, an info line when the circuit opens and when Redis
 * answers again. Requests counted in memory during an outage are not copied to Redis.
 */
export function storeWithFallback(
  primary: SharedSlidingWindowStore,
  fallback: SlidingWindowStore,
  log: FallbackLog,
  options: CircuitOptions = {},
): SlidingWindowStore & { readonly stats: FallbackStats } {
  const failureThreshold = options.failureThreshold ?? 3;
  const cooldownMs = options.cooldownMs ?? 5_000;
  const stats: FallbackStats = { circuit: 'closed', redisCalls: 0, redisFailures: 0, memoryAnswers: 0, circuitOpenings: 0 };
  let degraded = false;
  let consecutiveFailures = 0;
  let openedAtMs = 0;
  let probing = false;

  function degrade(err: unknown) {
    if (degraded) return;
    degraded = true;
    log.warn(
      { err },
      'rate limit: Redis unreachable, counting in this process only (each instance allows the full limit) until it is back',
    );
  }
  function fromMemory(key: string, nowMs: number) {
    stats.memoryAnswers += 1;
    return fallback.hit(key, nowMs);
  }
  function open(nowMs: number, err: unknown) {
    openedAtMs = nowMs;
    if (stats.circuit === 'half-open') {
      log.debug({ err: String(err) }, 'rate limit: circuit probe failed, memory for another cooldown');
    } else {
      stats.circuitOpenings += 1;
      log.info(
        { failures: consecutiveFailures, cooldownMs, err: String(err) },
        'rate limit: circuit open, not asking Redis for a while (it failed or timed out several times in a row)',
      );
    }
    stats.circuit = 'open';
  }

  return {
    stats,
    async hit(key, nowMs) {
      // A new instance's first connection: wait for it (bounded) rather than count alone.
      if (primary.connection() === 'unknown') await primary.firstConnection();
      if (primary.connection() !== 'up') {
        degrade(new Error('Redis connection is not up'));
        return fromMemory(key, nowMs);
      }
      let probe = false;
      if (stats.circuit !== 'closed') {
        // Open until the cooldown is over; then one request at a time probes.
        if (probing || nowMs - openedAtMs < cooldownMs) return fromMemory(key, nowMs);
        stats.circuit = 'half-open';
        probing = probe = true;
      }
      stats.redisCalls += 1;
      try {
        const result = await primary.hit(key, nowMs);
        consecutiveFailures = 0;
        if (stats.circuit !== 'closed') stats.circuit = 'closed';
        if (degraded) {
          degraded = false;
          log.info({}, 'rate limit: Redis is back, the window is shared again');
        }
        return result;
      } catch (err) {
        stats.redisFailures += 1;
        consecutiveFailures += 1;
        degrade(err);
        if (probe || (stats.circuit === 'closed' && consecutiveFailures >= failureThreshold)) open(nowMs, err);
        return fallback.hit(key, nowMs);
      } finally {
        if (probe) probing = false;
      }
    },
    async close() {
      await Promise.all([primary.close(), fallback.close()]);
    },
  };
}
