/**
 * Small helpers the demo seed's modules share: day arithmetic, money as a numeric string, a
 * lookup that fails loudly on a seed bug, and the seeded PRNG that keeps the demo data stable.
 */
export const DAY_MS = 86_400_000;

/** A row or constant this seed has just written or declared: missing means the seed itself is wrong. */
export function known<K, V>(map: ReadonlyMap<K, V>, key: K): V {
  const value = map.get(key);
  if (value === undefined) throw new Error(`demo seed: nothing recorded for ${String(key)}`);
  return value;
}

export function money(n: number): string {
  return n.toFixed(2);
}

/** A small seeded PRNG: the same demo data on every run. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
