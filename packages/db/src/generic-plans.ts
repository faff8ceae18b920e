import type pg from 'pg';

// Generic plans for chosen prepared statements: their names, and the part of createDb's pool that
// runs them (createPostgres in postgres.ts builds the two pools).

/**
 * Prepared statements named with this prefix (genericPlanName) run on connections of their own
 * whose `plan_cache_mode` is `force_generic_plan`: PostgreSQL plans them once per connection.
 * By default it plans a named statement again on every execution whenever its generic plan looks
 * dearer than the plans for the values at hand, and for a catalog search that planning (the
 * trigram match, the union with the matching categories, the page and its count) is ~0.7 ms of
 * every request: 1.8-2.1 ms per search against 1.2 ms with the generic plan (pgbench on the
 * bench's 10,000 courses; as fast for a search that matches every course). Only statements whose
 * generic plan is known to be good get the prefix: a page without a search is the opposite case
 * (its generic plan, not knowing the LIMIT, scans every course: 7 ms against 1.1 ms). Inside a
 * transaction a statement runs on the transaction's connection, whatever its name. PGlite has one
 * connection and ignores the prefix.
 */
export const GENERIC_PLAN_PREFIX = 'generic_';

/** The name of a prepared statement that should run with its generic plan (GENERIC_PLAN_PREFIX). */
export function genericPlanName(name: string): string {
  return `${GENERIC_PLAN_PREFIX}${name}`;
}

/** Whether a statement of this name runs on the generic-plan connections (genericPlanName). */
export function plansGenerically(name: unknown): boolean {
  return typeof name === 'string' && name.startsWith(GENERIC_PLAN_PREFIX);
}

/**
 * How a pool of DB_POOL_MAX connections is split: a fifth (at least one) for the statements named
 * with GENERIC_PLAN_PREFIX, the rest for everything else; one connection is not split. The total
 * stays DB_POOL_MAX, the figure an operator sizes `max_connections` with.
 */
export function poolSizes(poolMax: number): { main: number; generic: number } {
  if (poolMax < 2) return { main: poolMax, generic: 0 };
  const generic = Math.max(1, Math.floor(poolMax / 5));
  return { main: poolMax - generic, generic };
}

/** The start-up option of the generic-plan connections. */
export const GENERIC_PLAN_OPTIONS = '-c plan_cache_mode=force_generic_plan';

/** The main pool: a statement named with GENERIC_PLAN_PREFIX goes to `generic` instead. */
export function routedByName(Base: typeof pg.Pool, generic: pg.Pool): typeof pg.Pool {
  return class RoutedPool extends Base {
    // biome-ignore lint/suspicious/noExplicitAny: overrides pg's overloaded method (callback or promise): only `any` matches every overload.
    override query(...args: any[]): any {
      const config = args[0] as { name?: unknown } | string | undefined;
      if (typeof config === 'object' && config !== null && plansGenerically(config.name)) {
        return (generic.query as (...a: unknown[]) => unknown)(...args);
      }
      return (super.query as (...a: unknown[]) => unknown)(...args);
    }
  };
}
