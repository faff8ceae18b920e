/**
 * Answers shared by every caller who asks the same question within a short time: each value is
 * computed once per key and period (`ttlMs`), and callers who ask while it is being computed wait
 * for that one computation instead of starting their own (single flight). A failed computation is
 * not kept: the next caller tries again. At most `maxEntries` keys are kept (the oldest go first),
 * and expired answers are dropped as new ones are made, so memory holds only recent answers.
 */
interface Entry<T> {
  until: number;
  value: Promise<T>;
  /** Set by refresh(): the answer is out of date; the next caller computes it again. */
  stale?: boolean;
  /** The computation refresh() asked for, while it runs: callers meanwhile get `value`, the previous answer. */
  refreshing?: Promise<T>;
}

export class SharedAnswers<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Counts refresh() calls: an answer computed across one is already out of date when it is made. */
  private changes = 0;

  constructor(private readonly options: { ttlMs: number; maxEntries: number; now: () => number }) {}

  get(key: string, compute: () => Promise<T>): Promise<T> {
    const now = this.options.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now && hit.stale) {
      // Out of date (refresh()): the first caller computes the new answer and waits for it;
      // callers while it runs get the previous one rather than queue behind it.
      if (hit.refreshing) return hit.value;
      const changesBefore = this.changes;
      const fresh = compute();
      hit.refreshing = fresh;
      fresh.then(
        () => {
          if (this.entries.get(key) !== hit) return;
          // A change committed while it was computed may be missing from it: then it stays stale.
          const stale = this.changes !== changesBefore;
          this.entries.set(key, { until: this.options.now() + this.options.ttlMs, value: fresh, ...(stale ? { stale } : {}) });
        },
        () => {
          hit.refreshing = undefined;
        },
      );
      return fresh;
    }
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

  /**
   * Every answer is out of date (what it was computed from changed): the next caller of each key
   * computes it again and waits for it, so a caller that asks after the change gets an answer made
   * after it; callers while that computation runs get the previous answer, instead of all waiting
   * (a stream of changes would otherwise keep every caller waiting for a computation).
   */
  refresh(): void {
    this.changes += 1;
    for (const entry of this.entries.values()) entry.stale = true;
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
