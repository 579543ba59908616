import { z } from 'zod';
import { addressList, booleanFlag, httpUrl, listenerFields, portOrOff, redisFields, secret } from '@acs/config';
import { JWT_AUDIENCE_DEFAULT, JWT_ISSUER_DEFAULT, rateLimitsEnv } from '@acs/contracts';

export const gatewayConfigSchema = z
  .object({
    ...listenerFields(8080),
    /** Prometheus scrapes GET /metrics here, on HOST, never on PORT (the public one); `off`: no listener. */
    METRICS_PORT: portOrOff(9464),
    /**
     * Load balancers / Ingress controllers in front of the gateway (IPs or CIDR ranges): their
     * X-Forwarded-For names the client, which identity's per-address login throttle needs.
     * Empty: the connection's address is the client's.
     */
    TRUSTED_PROXIES: addressList(),
    ...redisFields(),
    /**
     * Whether a client's W3C traceparent is the parent of the gateway's span (clients inside the same
     * trust boundary, e.g. another traced system of yours). Default: a new trace that links to the client's.
     */
    TRACE_TRUST_INCOMING: booleanFlag(false),
    /**
     * One key per upstream signs the caller context sent to it: each is that service's own INTERNAL_SECRET,
     * so a service that is broken into cannot sign a context for another (docs/security.md).
     */
    INTERNAL_SECRET_KEYS: secret().optional(),
    INTERNAL_SECRET_IDENTITY: secret().optional(),
    INTERNAL_SECRET_CATALOG: secret().optional(),
    INTERNAL_SECRET_DEVICE: secret().optional(),
    INTERNAL_SECRET_BILLING: secret().optional(),
    INTERNAL_SECRET_WEBHOOKS: secret().optional(),
    /** The key of every upstream without its own variable above: one key for all, for development and tests only. */
    INTERNAL_SECRET: secret().optional(),
    KEYS_URL: httpUrl(),
    CATALOG_URL: httpUrl().optional(),
    // Services of later issues: unset means "not deployed", and their routes answer 503.
    IDENTITY_URL: httpUrl().optional(),
    DEVICE_URL: httpUrl().optional(),
    BILLING_URL: httpUrl().optional(),
    WEBHOOKS_URL: httpUrl().optional(),
    /** Time allowed for an upstream to send its response headers, and between body chunks. */
    UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    UPSTREAM_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(2_000),
    /** How long a request with an Idempotency-Key holds its key while it runs (409 for a retry meanwhile); longer than any answer takes. */
    IDEMPOTENCY_LEASE_MS: z.coerce.number().int().positive().default(60_000),
    UPSTREAM_CONNECTIONS: z.coerce.number().int().positive().default(64),
    /** Largest request body forwarded (the catalog import is the big one); larger gives 413. */
    /** Must match the identity service's JWT_ISSUER / JWT_AUDIENCE. */
    JWT_ISSUER: z.string().default(JWT_ISSUER_DEFAULT),
    JWT_AUDIENCE: z.string().default(JWT_AUDIENCE_DEFAULT),
    /** Verified tokens remembered until their expiry (each ~100 bytes); the oldest go first past this. */
    VERIFIED_TOKEN_CACHE_SIZE: z.coerce.number().int().positive().default(50_000),
    /** How often key usage (lastUsedAt) is sent to the keys service. */
    KEY_USAGE_FLUSH_MS: z.coerce.number().int().positive().default(10_000),
    MAX_BODY_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(16 * 1024 * 1024),
    /** Rate limits of live / test keys without their own list ("100/1s,100000/1d"); unset: none. */
    RATE_LIMITS_LIVE: rateLimitsEnv(),
    RATE_LIMITS_TEST: rateLimitsEnv(),
    /** How many gateway replicas share the traffic: while Redis is unreachable each admits 1/GATEWAY_REPLICAS of every limit. */
    GATEWAY_REPLICAS: z.coerce.number().int().positive().max(1000).default(1),
  })
  .superRefine((config, ctx) => {
    for (const [upstream, urlVariable] of UPSTREAM_KEYS) {
      const keyVariable = `INTERNAL_SECRET_${upstream}` as const;
      if (config[urlVariable] !== undefined && config[keyVariable] === undefined && config.INTERNAL_SECRET === undefined)
        ctx.addIssue({
          code: 'custom',
          path: [keyVariable],
          message: `${keyVariable} is required when ${urlVariable} is set: the ${upstream.toLowerCase()} service's own INTERNAL_SECRET`,
        });
    }
  });

/** Each upstream's URL variable, by the suffix of its key variable. */
const UPSTREAM_KEYS = [
  ['KEYS', 'KEYS_URL'],
  ['IDENTITY', 'IDENTITY_URL'],
  ['CATALOG', 'CATALOG_URL'],
  ['DEVICE', 'DEVICE_URL'],
  ['BILLING', 'BILLING_URL'],
  ['WEBHOOKS', 'WEBHOOKS_URL'],
] as const;

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
