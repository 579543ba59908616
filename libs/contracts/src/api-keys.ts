import { z } from 'zod';
import { rateLimitsSchema } from './rate-limits.js';

// /api/ApiKeys: the spec fixes the creation request (name, scopes as one space-separated string)
// and that key and secret come back; everything else here is the platform's decision.

export const apiKeyNameSchema = z.string().trim().min(1, 'name must not be empty').max(100);

export const apiKeyCreateRequestSchema = z.object({
  name: apiKeyNameSchema.describe('label of the key'),
  scopes: z.string().max(500).describe('scope names separated by single spaces, from auth:login auth:register register:device read:devices write:devices'),
  environment: z.enum(['live', 'test']).default('live').describe('the environment word in the key; live by default'),
  rateLimits: rateLimitsSchema.nullable().optional().describe("the key's own rate limits, at or below the deployment's ceiling; omitted or null: the deployment's default"),
});

export const apiKeyChangeRequestSchema = z
  .object({
    scopes: z.string().max(500).optional().describe('the new scopes, replacing the old ones'),
    name: apiKeyNameSchema.optional(),
    rateLimits: rateLimitsSchema.nullable().optional().describe("the key's new rate limits; null: back to the deployment's default"),
  })
  .refine((body) => body.scopes !== undefined || body.name !== undefined || body.rateLimits !== undefined, { message: 'Give scopes, name, rateLimits or several' });

/** A key as its owner sees it: never the secret, never its hash. Scopes in the request's own format. */
export const apiKeyViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  key: z.string().describe('<prefix>_<live|test>_<identifier>'),
  scopes: z.string(),
  environment: z.enum(['live', 'test']),
  createdAt: z.string().describe('ISO 8601 UTC'),
  lastUsedAt: z.string().nullable().describe('ISO 8601 UTC; recorded in batches, up to about 10 s behind'),
  revokedAt: z.string().nullable(),
  rateLimits: rateLimitsSchema.nullable().describe("the key's own rate limits; null: the deployment's default applies"),
});

export const apiKeyListResponseSchema = z.object({ items: z.array(apiKeyViewSchema) });

export const apiKeyCreatedResponseSchema = apiKeyViewSchema
  .omit({ lastUsedAt: true, revokedAt: true })
  .extend({ secret: z.string().describe('the API secret; returned only now, never again') });

/** Gateway-to-keys: when keys were last used, sent in batches so no request writes the database. */
export const KEY_USAGE_PATH = '/internal/keys/usage';
export const keyUsageRequestSchema = z.object({
  usage: z.array(z.object({ keyId: z.string().uuid(), lastUsedAt: z.number().int().positive().describe('Unix seconds') })).max(100_000),
});

export type ApiKeyView = z.infer<typeof apiKeyViewSchema>;
export type ApiKeyCreatedResponseBody = z.infer<typeof apiKeyCreatedResponseSchema>;
