// Reading an app's environment: both apps parse it with a zod schema of their own and derive a
// few settings from it (TRUST_PROXY's ranges); a bad value stops the start with one message
// naming every bad variable, not a stack trace (./startup.ts prints it).

import type { z } from 'zod';

/** The configuration cannot be used: its message names each bad variable, one per line. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The environment parsed with an app's schema; a ConfigError naming every variable that does not pass. */
export function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.output<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** A setting derived from parsed ones (e.g. TRUST_PROXY's ranges): whatever `derive` throws becomes a ConfigError. */
export function deriveSetting<T>(derive: () => T): T {
  try {
    return derive();
  } catch (err) {
    throw new ConfigError(`Invalid configuration:\n  ${(err as Error).message.split('\n').join('\n  ')}`);
  }
}
