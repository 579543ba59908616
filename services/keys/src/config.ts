import { z } from 'zod';
import { auditFields, booleanFlag, wholeNumber, busFields, outboxFields, redisFields, serviceFields, userEventsFields } from '@acs/config';
import { KEY_PREFIX_PATTERN } from '@acs/auth';
import { rateLimitsEnv } from '@acs/contracts';

export const keysConfigSchema = z
  .object({
    ...serviceFields(8081),
    ...redisFields(),
    /** RabbitMQ for API key events (api_key.*, published through the outbox); required by main.ts. */
    ...busFields(),
    ...userEventsFields('keys'),
    ...outboxFields(),
    ...auditFields(),
    KEY_PREFIX: z.string().regex(KEY_PREFIX_PATTERN, 'expected 2-16 lower-case letters or digits, starting with a letter').default('acs'),
    /** Active (not revoked) keys a user may hold; creating one more answers 409. */
    KEYS_PER_USER: z.coerce.number().int().positive().default(25),
    /** The most generous rate limits a user may give their own key ("1000/1s,1000000/1d"); unset: no ceiling. */
    RATE_LIMIT_CEILING: rateLimitsEnv(),
    /** The longest lifetime a user may give a new key (expiresAt at most this many days ahead); unset: no maximum. */
    KEY_MAX_LIFETIME_DAYS: z.coerce.number().int().positive().max(36_500).optional(),
    /**
     * How often the keys process looks for keys expiring within 30, 7 and 1 days, or expired, and
     * records their reminders (api_key.expiring.v1, api_key.expired.v1); a reminder is at most this late.
     */
    KEY_EXPIRY_SWEEP_SECONDS: wholeNumber(1, 86_400, 120),
    /** Days the per-operation usage (hourly rows) is kept; older rows are purged every hour (issue 29). */
    USAGE_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
    /** Users create keys only once their e-mail address is verified (403 email_unverified before); operators' CLI keys are not bound by it. */
    REQUIRE_VERIFIED_EMAIL_FOR_KEYS: booleanFlag(false),
    /**
     * The public keys of the secret scanners whose signed leak reports revoke keys (issue 31): JSON, a list of
     * {key_identifier, key (PEM)} or GitHub's {public_keys: [...]}; or a file holding it. Unset: reports are off (404).
     */
    SECRET_SCANNING_PUBLIC_KEYS: z.string().optional(),
    SECRET_SCANNING_PUBLIC_KEYS_FILE: z.string().optional(),
    SEED_API_KEY: z.string().optional(),
    SEED_API_SECRET: z.string().min(32, 'expected at least 32 characters').optional(),
    SEED_API_SCOPES: z.string().default('system:full-access'),
    SEED_API_NAME: z.string().default('seed key'),
    /**
     * The gateway's default limits, read here only to check the ceiling below: the same values as the
     * gateway's (test/deploy keeps them equal in compose and k8s).
     */
    RATE_LIMITS_LIVE: rateLimitsEnv(),
    RATE_LIMITS_TEST: rateLimitsEnv(),
  })
  // Without a ceiling a user could give their own key more than the default the operator chose for everyone.
  .superRefine((config, ctx) => {
    if ((config.RATE_LIMITS_LIVE || config.RATE_LIMITS_TEST) && !config.RATE_LIMIT_CEILING)
      ctx.addIssue({
        code: 'custom',
        path: ['RATE_LIMIT_CEILING'],
        message:
          'RATE_LIMIT_CEILING is required when the gateway has default limits (RATE_LIMITS_LIVE or RATE_LIMITS_TEST is set): ' +
          'without it users could lift their own keys above those defaults; set it, e.g. to the value of RATE_LIMITS_LIVE',
      });
  });

export type KeysConfig = z.infer<typeof keysConfigSchema>;
