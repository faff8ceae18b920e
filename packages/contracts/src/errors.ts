import { z } from 'zod';

/** The error body of the catalog, progress and create endpoints: `{success:false, error}`. */
export const ErrorResponse = z
  .object({
    success: z.literal(false),
    error: z.string(),
  })
  .meta({ id: 'ErrorResponse' });
export type ErrorResponse = z.infer<typeof ErrorResponse>;

/** A 400 for a bad body: which field, and what is wrong with it. */
export const ValidationErrorResponse = z
  .object({
    success: z.literal(false),
    error: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })),
  })
  .meta({ id: 'ValidationErrorResponse' });
export type ValidationErrorResponse = z.infer<typeof ValidationErrorResponse>;

/** The gateway's SSO errors are `{error}` only, as the spec's gateway table shows. */
export const GatewayErrorResponse = z.object({ error: z.string() }).meta({ id: 'GatewayErrorResponse' });
export type GatewayErrorResponse = z.infer<typeof GatewayErrorResponse>;
