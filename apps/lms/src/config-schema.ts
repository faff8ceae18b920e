import { z } from 'zod';

// The value types the LMS's settings are read with (config.ts, config-notifications.ts).

/** Empty strings count as unset, so `${VAR:-}` in docker compose means "use the default". */
export const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** A time zone Intl knows (IANA names in any case, `UTC`), written the canonical way (`Asia/Jakarta`). */
export const timeZone = z.string().transform((zone, ctx) => {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    ctx.addIssue({
      code: 'custom',
      message: `not a time zone: ${JSON.stringify(zone)} (an IANA name such as Asia/Jakarta, Asia/Makassar or UTC)`,
    });
    return z.NEVER;
  }
});

/** A day of the year, MM-DD, that a leap year has (29 February falls on 1 March in a common year). */
export const MONTH_DAY = /^(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
export const monthDay = z
  .string()
  .regex(MONTH_DAY, 'a day of the year as MM-DD, e.g. 11-01')
  .refine((v) => {
    const [m, d] = v.split('-').map(Number) as [number, number];
    return new Date(Date.UTC(2024, m - 1, d)).getUTCDate() === d;
  }, 'no such day (MM-DD, e.g. 11-01)');

export const boolFlag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
