import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Runs `fn` and says the longest time the event loop was held while it ran: the larger of
 * perf_hooks' event-loop-delay histogram and the longest gap between the ticks of a 5 ms timer of
 * our own (on Node 20 the histogram alone records nothing while no other timer is due, and a stall
 * is only counted once the loop turns again: the timer makes it turn, and the wait after `fn`
 * lets a stall at its very end be counted).
 */
export async function heldLoop<T>(fn: () => Promise<T>): Promise<{ result: T; maxMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  let last = performance.now();
  let longest = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  histogram.enable();
  try {
    const result = await fn();
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { result, maxMs: Math.max(histogram.max / 1e6, longest) };
  } finally {
    histogram.disable();
    clearInterval(tick);
  }
}
