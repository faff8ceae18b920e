import { z } from 'zod';
import { MAX_ID, text } from './text.js';

/** One of a teacher's API keys as lists show it: never the key itself, only its first characters. */
export const ApiKeySummary = z
  .object({
    id: z.number().int(),
    name: z.string(),
    prefix: z.string().describe('The first characters of the key (`lms_key_` and 6 more), to tell keys apart'),
    createdAt: z.iso.datetime(),
    lastUsedAt: z.iso.datetime().nullable().describe('Recorded at most once a minute'),
    revokedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'ApiKeySummary' });
export type ApiKeySummary = z.infer<typeof ApiKeySummary>;

export const ApiKeyListResponse = z
  .object({ success: z.literal(true), apiKeys: z.array(ApiKeySummary) })
  .meta({ id: 'ApiKeyListResponse' });
export type ApiKeyListResponse = z.infer<typeof ApiKeyListResponse>;

export const CreateApiKeyBody = z
  .object({ name: text().trim().min(1).max(100).describe('A label for the key, 1 to 100 characters') })
  .meta({ id: 'CreateApiKeyBody' });
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBody>;

/** Shown with a new key: the only time the key is ever readable. */
export const API_KEY_SHOWN_ONCE_WARNING =
  'Copy this key now: it will not be shown again. Only a hash of it is stored; if you lose it, revoke it and create a new one.';

export const CreatedApiKeyResponse = z
  .object({
    success: z.literal(true),
    apiKey: ApiKeySummary.extend({
      key: z.string().describe('The key in clear (`lms_key_...`), shown only in this response'),
    }),
    warning: z.string(),
  })
  .meta({ id: 'CreatedApiKeyResponse' });
export type CreatedApiKeyResponse = z.infer<typeof CreatedApiKeyResponse>;

export const ApiKeyIdParams = z.object({
  id: z.coerce.number().int().min(1).max(MAX_ID).describe('The key id from the list'),
});
export type ApiKeyIdParams = z.infer<typeof ApiKeyIdParams>;

export const RevokedApiKeyResponse = z.object({ success: z.literal(true), apiKey: ApiKeySummary }).meta({ id: 'RevokedApiKeyResponse' });
export type RevokedApiKeyResponse = z.infer<typeof RevokedApiKeyResponse>;
