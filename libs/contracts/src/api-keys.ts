import { z } from 'zod';
import { QUOTA_PERIODS, quotaThresholdCrossingSchema } from './quota.js';
import { ipAllowListSchema } from './ip-allow-list.js';
import { rateLimitsSchema } from './rate-limits.js';

// /api/ApiKeys: the spec fixes the creation request (name, scopes as one space-separated string)
// and that key and secret come back; everything else here is the platform's decision.

const apiKeyNameSchema = z.string().trim().min(1, 'name must not be empty').max(100);

export const apiKeyCreateRequestSchema = z.object({
  name: apiKeyNameSchema.describe('label of the key'),
  scopes: z
    .string()
    .max(500)
    .describe('scope names separated by single spaces, from auth:login auth:register register:device read:devices write:devices'),
  environment: z.enum(['live', 'test']).default('live').describe('the environment word in the key; live by default'),
  rateLimits: rateLimitsSchema
    .nullable()
    .optional()
    .describe("the key's own rate limits, at or below the deployment's ceiling; omitted or null: the deployment's default"),
  expiresAt: z.iso
    .datetime({ offset: true })
    .nullable()
    .optional()
    .describe(
      'ISO 8601 instant from which the key answers 401; in the future, at most KEY_MAX_LIFETIME_DAYS ahead when the deployment sets it. Omitted: no expiry, or that maximum where it is set; null: no expiry, refused with 400 where a maximum is set',
    ),
  ipAllowList: ipAllowListSchema
    .nullable()
    .optional()
    .describe(
      'CIDR ranges (IPv4 or IPv6; a bare address is one host) the key may be used from, at most 100; null: any address. Checked by the gateway on every request (403 ip_not_allowed)',
    ),
});

/**
 * Strict, as webhooks' PATCH body: a field it does not take (expiresAt, a typo) is a 400 naming it, never
 * ignored, so a client never reads a 200 as "changed" for a change that was not made.
 */
export const apiKeyChangeRequestSchema = z
  .strictObject({
    scopes: z.string().max(500).optional().describe('the new scopes, replacing the old ones'),
    name: apiKeyNameSchema.optional(),
    rateLimits: rateLimitsSchema.nullable().optional().describe("the key's new rate limits; null: back to the deployment's default"),
    ipAllowList: ipAllowListSchema
      .nullable()
      .optional()
      .describe('the new CIDR ranges the key may be used from, replacing the old ones; null: any address again'),
  })
  .refine(
    (body) => body.scopes !== undefined || body.name !== undefined || body.rateLimits !== undefined || body.ipAllowList !== undefined,
    { message: 'Give scopes, name, rateLimits, ipAllowList or several' },
  );

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
  revokedReason: z
    .enum(['exposed'])
    .nullable()
    .describe("why the key was revoked when nobody chose to: 'exposed' (a leak report named its secret); null otherwise"),
  exposedAt: z
    .string()
    .nullable()
    .describe('ISO 8601 UTC; when a leak report first named its secret (the key was revoked then); null: never'),
  rateLimits: rateLimitsSchema.nullable().describe("the key's own rate limits; null: the deployment's default applies"),
  expiresAt: z.string().nullable().describe('ISO 8601 UTC; from then on the key answers 401; null: no expiry'),
  graceEndsAt: z
    .string()
    .nullable()
    .describe('ISO 8601 UTC; after a roll, when the replaced secret stops working; null: no replaced one works'),
  ipAllowList: z.array(z.string()).nullable().describe('CIDR ranges the key may be used from; null: any address'),
});

export const apiKeyListResponseSchema = z.object({ items: z.array(apiKeyViewSchema) });

export const apiKeyCreatedResponseSchema = apiKeyViewSchema
  .omit({ lastUsedAt: true, revokedAt: true, graceEndsAt: true, revokedReason: true, exposedAt: true })
  .extend({ secret: z.string().describe('the API secret; returned only now, never again') });

export const API_KEY_ROLL_MAX_GRACE_SECONDS = 604_800;
export const API_KEY_ROLL_DEFAULT_GRACE_SECONDS = 86_400;
export const apiKeyRollRequestSchema = z.object({
  graceSeconds: z
    .number()
    .int()
    .min(0)
    .max(API_KEY_ROLL_MAX_GRACE_SECONDS)
    .default(API_KEY_ROLL_DEFAULT_GRACE_SECONDS)
    .describe('how long the replaced secret keeps working (0..604800 s, default 86400); 0 stops it at once (a leaked secret)'),
});

export const apiKeyRolledResponseSchema = apiKeyViewSchema.extend({
  secret: z.string().describe('the new API secret; returned only now, never again'),
});

const API_KEY_USAGE_MAX_DAYS = 90;
/** A UTC date (YYYY-MM-DD, its midnight) or an ISO 8601 date-time. */
const usageInstant = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })], {
    // Named, not zod's "Invalid input" for a union: the client learns both forms it may send.
    error: 'must be a UTC date (2026-11-01) or an ISO 8601 date-time with Z or an offset (2026-11-01T00:00:00Z)',
  })
  .transform((text) => new Date(text.length === 10 ? `${text}T00:00:00Z` : text))
  // A real date, 1970-9999: nothing older is kept, and every value is one PostgreSQL reads.
  .refine((date) => date.getTime() >= 0 && date.getUTCFullYear() <= 9999, 'not a real date between 1970 and 9999');

export const apiKeyUsageQuerySchema = z.strictObject({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(API_KEY_USAGE_MAX_DAYS)
    .default(30)
    .describe('how many UTC days back, today included (1-90, default 30)'),
  /** `operation` (issue 29): per operation and UTC hour between `from` and `to` instead of per day. */
  by: z.enum(['day', 'operation']).default('day'),
  from: usageInstant.optional(),
  to: usageInstant.optional(),
  /** `csv`: the same rows as text/csv (also chosen by `Accept: text/csv`). */
  format: z.enum(['json', 'csv']).optional(),
});

/** Status classes counted per key and day; 4xx excludes 429, which is counted on its own. */
const STATUS_CLASSES = ['2xx', '3xx', '4xx', '429', '5xx'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

const byStatusSchema = z.object({
  '2xx': z.number().int(),
  '3xx': z.number().int(),
  '4xx': z.number().int(),
  '429': z.number().int(),
  '5xx': z.number().int(),
});
export const apiKeyUsageResponseSchema = z.object({
  days: z
    .array(z.object({ date: z.string().describe('YYYY-MM-DD (UTC)'), requests: z.number().int(), byStatus: byStatusSchema }))
    .describe('oldest first, days without traffic as zero'),
});
export type ApiKeyUsageResponseBody = z.infer<typeof apiKeyUsageResponseSchema>;

const operationUsageSchema = z.object({ operationId: z.string(), requests: z.number().int(), byStatus: byStatusSchema });
/** `by=operation`: the totals per operation over [from, to), and the hourly rows they sum (hours without traffic left out). */
export const apiKeyOperationUsageResponseSchema = z.object({
  from: z.string().describe('ISO 8601 UTC, inclusive'),
  to: z.string().describe('ISO 8601 UTC, exclusive'),
  operations: z.array(operationUsageSchema).describe('most requests first'),
  hours: z.array(operationUsageSchema.extend({ hour: z.string().describe('start of the UTC hour, ISO 8601') })).describe('oldest first'),
});
export type ApiKeyOperationUsageResponseBody = z.infer<typeof apiKeyOperationUsageResponseSchema>;

/** GET /api/Usage (issue 29): this period's requests of all the user's keys against the quota, and per key. */
const usagePeriodSchema = z.object({
  period: z.enum(QUOTA_PERIODS),
  periodStart: z.string().describe('YYYY-MM-DD (day) or YYYY-MM (month), UTC'),
  resetsAt: z.string().describe('ISO 8601 UTC: the start of the next period'),
  used: z.number().int().describe("the gateway's counter: requests of all the user's keys the gateway admitted this period"),
  quota: z.number().int().nullable().describe('null: no cap for this period'),
  left: z.number().int().nullable().describe('quota - used, at least 0; null without a cap'),
});
export const usageResponseSchema = z.object({
  plan: z.string().nullable().describe('the plan the quota comes from (a plan id, "trial" or "none"); null: no quota'),
  periods: z.array(usagePeriodSchema).describe('the month, and the day when the quota caps it'),
  keys: z
    .array(z.object({ id: z.string(), name: z.string(), requests: z.number().int().describe('this month, from the usage roll-up') }))
    .describe("the user's keys (revoked ones too while they have requests this month), most requests first"),
});
export type UsageResponseBody = z.infer<typeof usageResponseSchema>;
export const usageQuerySchema = z.strictObject({ format: z.enum(['json', 'csv']).optional() });

const byStatusCountSchema = z.object({
  '2xx': z.number().int().min(0),
  '3xx': z.number().int().min(0),
  '4xx': z.number().int().min(0),
  '429': z.number().int().min(0),
  '5xx': z.number().int().min(0),
});

/** Gateway-to-keys: when keys were last used, sent in batches so no request writes the database. */
export const KEY_USAGE_PATH = '/internal/keys/usage';
export const keyUsageRequestSchema = z.object({
  usage: z.array(z.object({ keyId: z.string().uuid(), lastUsedAt: z.number().int().positive().describe('Unix seconds') })).max(100_000),
  /** Requests per key, UTC day and status class since the last batch (absent from older gateways). */
  counts: z
    .array(
      z.object({
        keyId: z.string().uuid(),
        date: z.iso.date(),
        byStatus: byStatusCountSchema,
      }),
    )
    .max(200_000)
    .optional(),
  /**
   * Requests per key, operation (the route's operationId), UTC hour and status class since the last batch
   * (issue 29; absent from older gateways). `counts` holds the same requests summed per day.
   */
  operationCounts: z
    .array(
      z.object({
        keyId: z.string().uuid(),
        operationId: z.string().min(1).max(100),
        hour: z.iso.datetime().describe('the start of the UTC hour'),
        byStatus: byStatusCountSchema,
      }),
    )
    .max(200_000)
    .optional(),
  /** Quota thresholds the gateway saw crossed since the last batch (issue 29); keys publishes each once per period. */
  quotaThresholds: z.array(quotaThresholdCrossingSchema).max(100_000).optional(),
});
export type KeyUsageCount = NonNullable<z.infer<typeof keyUsageRequestSchema>['counts']>[number];
export type KeyOperationUsageCount = NonNullable<z.infer<typeof keyUsageRequestSchema>['operationCounts']>[number];

export type ApiKeyView = z.infer<typeof apiKeyViewSchema>;
export type ApiKeyCreatedResponseBody = z.infer<typeof apiKeyCreatedResponseSchema>;
