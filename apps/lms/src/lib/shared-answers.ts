/**
 * Answers shared by every caller who asks the same question within a short time: each value is
 * computed once per key and period (`ttlMs`), and callers who ask while it is being computed wait
 * for that one computation instead of starting their own (single flight). A failed computation is
 * not kept: the next caller tries again. At most `maxEntries` keys are kept (the oldest go first),
 * and expired answers are dropped as new ones are made, so memory holds only recent answers.
 */
export class SharedAnswers<T> {
  private readonly entries = new Map<string, { until: number; value: Promise<T> }>();

  constructor(private readonly options: { ttlMs: number; maxEntries: number; now: () => number }) {}

  get(key: string, compute: () => Promise<T>): Promise<T> {
    const now = this.options.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.value;
    if (hit) this.entries.delete(key);
    // Entries are kept in the order they were made and all live ttlMs: the expired ones are at
    // the front. Drop them, then the oldest live ones while there are too many.
    for (const [oldKey, entry] of this.entries) {
      if (entry.until > now && this.entries.size < this.options.maxEntries) break;
      this.entries.delete(oldKey);
    }
    const value = compute();
    const entry = { until: now + this.options.ttlMs, value };
    this.entries.set(key, entry);
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return value;
  }

  /** Forgets one key (the next caller computes it again). */
  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
