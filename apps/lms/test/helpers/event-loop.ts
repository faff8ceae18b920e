/**
 * How long `fn` held the event loop: the longest time between two turns of the loop while it ran,
 * counting in each gap only the CPU time the loop's own thread used. A 5 ms timer of our own marks
 * the turns (perf_hooks' delay histogram records nothing on some Node versions while no other
 * timer is due); in each gap between two of its ticks, the thread's CPU time
 * (`process.threadCpuUsage`) says how much of the gap our code ran. The wall-clock gap alone also
 * counts the time the operating system ran something else (on a machine with more runnable
 * threads than cores, as when the suite runs beside other work), which no request of ours holds;
 * the CPU time alone never exceeds the gap. So a gap holds min(wall, CPU), and `maxMs` is the
 * largest. `wallMs` is the longest wall-clock gap, for the message. A wait after `fn` lets a hold
 * at its very end be counted.
 */
export async function heldLoop<T>(fn: () => Promise<T>): Promise<{ result: T; maxMs: number; wallMs: number }> {
  const cpuMs = () => {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  };
  let lastWall = performance.now();
  let lastCpu = cpuMs();
  let longest = 0;
  let longestWall = 0;
  const turn = () => {
    const wall = performance.now();
    const cpu = cpuMs();
    longestWall = Math.max(longestWall, wall - lastWall);
    longest = Math.max(longest, Math.min(wall - lastWall, cpu - lastCpu));
    lastWall = wall;
    lastCpu = cpu;
  };
  const tick = setInterval(turn, 5);
  try {
    const result = await fn();
    await new Promise((resolve) => setTimeout(resolve, 20));
    turn();
    return { result, maxMs: longest, wallMs: longestWall };
  } finally {
    clearInterval(tick);
  }
}

/** `heldLoop`'s figures in words, for an assertion's message. */
export const heldText = (m: { maxMs: number; wallMs: number }) =>
  `${m.maxMs.toFixed(0)} ms (longest gap ${m.wallMs.toFixed(0)} ms of wall-clock time)`;

/**
 * `/healthz` asked every 50 ms (after a first 200 ms, while the attack gets in flight) until
 * `until` (performance.now()): how long each answer took and its status (0: no answer in 10 s).
 */
export async function probeHealth(base: string, until: number): Promise<{ times: number[]; statuses: number[] }> {
  const times: number[] = [];
  const statuses: number[] = [];
  await new Promise((resolve) => setTimeout(resolve, 200));
  while (performance.now() < until) {
    const started = performance.now();
    const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(10_000) }).catch(() => null);
    times.push(performance.now() - started);
    statuses.push(res?.status ?? 0);
    await res?.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { times, statuses };
}
