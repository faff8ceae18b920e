/** What main.ts and an app under test (serve.ts) say to each other over the fork's IPC channel. */

/** One SQL statement as the LMS sent it through its driver, with when it started and ended (ms, the child's clock). */
export interface CapturedStatement {
  text: string;
  values: unknown[];
  /** A named (prepared) statement's name: the replay prepares it once per connection too. */
  name?: string | undefined;
  rowMode?: string | undefined;
  startMs: number;
  endMs: number;
}

export type ParentRequest =
  /** CPU time used so far (user + system) and responses sent so far. */
  | { type: 'stats' }
  /** Start recording the statements the LMS sends (answered by `recording`). */
  | { type: 'record-sql' }
  /** Stop recording; answered by `recorded` with what was sent since `record-sql`. */
  | { type: 'recorded-sql' };

export type ChildReply =
  | { type: 'listening'; url: string; cookieName: string | null }
  | { type: 'stats'; cpuMicros: number; responses: number }
  | { type: 'recording' }
  | { type: 'recorded'; statements: CapturedStatement[] }
  | { type: 'error'; message: string };

/**
 * The statements in the order the route sent them, grouped in waves: a statement joins the current
 * wave when it started before every statement of that wave had ended (the route sent them
 * together, e.g. Promise.all), and opens a new wave otherwise. A replay sends the waves one after
 * the other and the statements of a wave together, as the route did.
 */
export function waves(statements: readonly CapturedStatement[]): CapturedStatement[][] {
  const sorted = [...statements].sort((a, b) => a.startMs - b.startMs);
  const result: CapturedStatement[][] = [];
  let lastEnd = Number.NEGATIVE_INFINITY;
  for (const s of sorted) {
    const current = result.at(-1);
    if (current && s.startMs < lastEnd) {
      current.push(s);
      lastEnd = Math.max(lastEnd, s.endMs);
    } else {
      result.push([s]);
      lastEnd = s.endMs;
    }
  }
  return result;
}
