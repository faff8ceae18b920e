import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { AUTHORING_LIMITS } from '@lms/contracts';

const MAX: number = AUTHORING_LIMITS.chapterContentChars;
const fill = (unit: string, max = MAX) => unit.repeat(Math.floor(max / unit.length));

/**
 * Chapter texts an author could save (each at most the chapter content limit), chosen for what
 * they cost markdown-it and sanitize-html: nested unclosed elements (quadratic in sanitize-html's
 * parser before the nesting limit), and Markdown that is heavy for markdown-it itself.
 */
export const HOSTILE_MARKDOWN: Record<string, string> = {
  'unclosed <a>': fill('<a>'),
  'unclosed <em> with text': fill('<em>x'),
  'unclosed <div>': fill('<div>'),
  'close tags that match nothing': `${'<b>'.repeat(250)}${fill('</i>', MAX - 750)}`,
  'emphasis delimiters': `${'*'.repeat(MAX / 2 - 1)}a${'*'.repeat(MAX / 2)}`,
  'open brackets': fill('['),
  links: fill('[a](https://e.example/) '),
  'a long table': `|a|b|\n|-|-|\n${fill('|x|y|\n', MAX - 12)}`,
  'nested lists': fill('- a\n  - b\n    - c\n      - d\n'),
  entities: fill('&amp;&lt;'),
};

for (const [name, text] of Object.entries(HOSTILE_MARKDOWN)) {
  if (text.length > MAX) throw new Error(`${name}: ${text.length} characters, more than a chapter may hold`);
}

/** Milliseconds of CPU this thread has used (Linux's schedstat); null where it cannot be read. */
function threadCpuMs(): number | null {
  try {
    const ns = Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : null;
  } catch {
    return null;
  }
}

/**
 * How long `work` held the event loop. `delayMs`: the longest event-loop delay meanwhile
 * (perf_hooks' monitorEventLoopDelay, sampled every 5 ms). `cpuMs`: the CPU time the event loop's
 * thread used meanwhile (all of the request's synchronous work, and whatever else ran on that
 * thread), which no single hold can exceed. `heldMs` is the smaller: on a machine with more
 * runnable threads than cores the delay also counts the time the operating system ran something
 * else, which no request of ours holds; where the CPU time cannot be read, the delay alone.
 */
export async function eventLoopHeld<T>(
  work: () => Promise<T>,
): Promise<{ result: T; heldMs: number; delayMs: number; cpuMs: number | null }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  try {
    // The histogram records the delay between two of its ticks: a block before its first tick
    // would go unseen, so the work starts once it has ticked.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const cpuBefore = threadCpuMs();
    const result = await work();
    // One more turn of the loop, so a block at the very end is sampled too.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const cpuAfter = threadCpuMs();
    const delayMs = histogram.max / 1e6;
    const cpuMs = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
    return { result, heldMs: cpuMs === null ? delayMs : Math.min(delayMs, cpuMs), delayMs, cpuMs };
  } finally {
    histogram.disable();
  }
}
