/** A clock the test moves by hand. */
export function manualClock(startMs = Date.parse('2026-03-01T08:00:00Z')) {
  let nowMs = startMs;
  return {
    clock: () => new Date(nowMs),
    /** Sets the time to `startMs + seconds`. */
    at(seconds: number, base = startMs) {
      nowMs = base + seconds * 1000;
    },
    set(ms: number) {
      nowMs = ms;
    },
    get ms() {
      return nowMs;
    },
  };
}
