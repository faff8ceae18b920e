/**
 * Reads until `done` says so, every 50 ms, at most `tries` times; then throws naming what it waited
 * for and the last value. For what another process or a background job changes (a queue's run,
 * a mail arriving), never as a measure of time.
 */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, tries = 600): Promise<T> {
  let value = await read();
  for (let i = 0; i < tries && !done(value); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  if (!done(value)) throw new Error(`gave up waiting for ${what}: ${JSON.stringify(value)}`);
  return value;
}
