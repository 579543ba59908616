import { z } from 'zod';
import { booleanFlag, busFields, commaSeparatedEntries, secret, serviceFields, wholeNumber } from '@acs/config';
import { parseDelays } from './domain/retry-schedule.js';

const DAY_SECONDS = 24 * 3600;

/** A retry schedule as operators write it: `5s,5m,30m,2h,5h,10h` (domain/retry-schedule.ts). */
const delayList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const delays = parseDelays(text);
      if (typeof delays === 'string') {
        ctx.addIssue({ code: 'custom', message: delays });
        return z.NEVER;
      }
      return delays;
    });

/** WEBHOOKS_SECRET_KEY_PREVIOUS: one key or several, comma-separated, each as long as WEBHOOKS_SECRET_KEY must be. */
const previousKeys = () =>
  z
    .string()
    .refine(
      (text) => {
        const keys = commaSeparatedEntries(text);
        return keys.length > 0 && keys.every((key) => secret().safeParse(key).success);
      },
      { message: 'expected one key, or several separated by commas, each of at least 32 characters' },
    )
    .optional();

export const webhooksConfigSchema = z
  .object({
    ...serviceFields(8087),
    ...busFields(),
    /**
     * Encrypts the endpoints' signing secrets at rest (AES-256-GCM). A new one needs the one it replaces
     * in WEBHOOKS_SECRET_KEY_PREVIOUS until `npm run webhooks -- reseal` has run (docs/security.md).
     */
    WEBHOOKS_SECRET_KEY: secret(),
    /**
     * During a rotation only: the key WEBHOOKS_SECRET_KEY replaces, still read (never sealed with); several,
     * comma-separated and tried in order, when a rotation starts before the last one's reseal has run.
     */
    WEBHOOKS_SECRET_KEY_PREVIOUS: previousKeys(),
    /**
     * true: http URLs and private, loopback and link-local addresses are allowed (tests, `npm start` on one machine).
     * Never in production: a user could make the service call into the internal network (SSRF).
     */
    WEBHOOKS_ALLOW_PRIVATE_URLS: booleanFlag(false),
    /** Waits between attempts (full jitter in [0, entry]; the last repeats). */
    WEBHOOKS_RETRY_SCHEDULE: delayList('5s,5m,30m,2h,5h,10h'),
    /** A delivery gives up (and disables its endpoint) at its first failure this long after its first attempt. */
    WEBHOOKS_GIVE_UP_AFTER_SECONDS: wholeNumber(1, 30 * DAY_SECONDS, DAY_SECONDS),
    /** Connect plus the whole answer, per attempt. */
    WEBHOOKS_TIMEOUT_MS: wholeNumber(100, 60_000, 10_000),
    /** The most of an answer read; a longer one is cut off (and the attempt failed). */
    WEBHOOKS_MAX_RESPONSE_BYTES: wholeNumber(0, 1024 * 1024, 64 * 1024),
    /** Attempts in flight at once in this process, all endpoints together. */
    WEBHOOKS_MAX_IN_FLIGHT: wholeNumber(1, 1000, 32),
    /** Attempts in flight at once to one endpoint, so a slow endpoint holds only its own slots. */
    WEBHOOKS_MAX_IN_FLIGHT_PER_ENDPOINT: wholeNumber(1, 10, 2),
    /** How often the sender looks for due deliveries when nothing wakes it. */
    WEBHOOKS_POLL_INTERVAL_MS: wholeNumber(10, 60_000, 1_000),
    /**
     * How long a claimed delivery is this sender's: one that dies mid-request leaves it due again after this
     * (at least once). Longer than WEBHOOKS_TIMEOUT_MS, so a live attempt is not sent twice.
     */
    WEBHOOKS_CLAIM_LEASE_MS: wholeNumber(1_000, 3_600_000, 60_000),
    /** Delivered and failed deliveries (and their attempts) are deleted after this many days; 0 keeps them. */
    WEBHOOKS_RETENTION_DAYS: wholeNumber(0, 3650, 30),
    /**
     * Events fanned out at once (the consumer's prefetch). Each is one short transaction: more in
     * flight lets PostgreSQL commit them together (bench:webhooks, docs/performance.md).
     */
    WEBHOOKS_CONSUMER_PREFETCH: wholeNumber(1, 1000, 50),
    /** The durable queue this service consumes the events from. */
    WEBHOOKS_QUEUE: z.string().min(1).default('webhooks.events'),
  })
  .refine((config) => config.WEBHOOKS_CLAIM_LEASE_MS > config.WEBHOOKS_TIMEOUT_MS, {
    message: 'WEBHOOKS_CLAIM_LEASE_MS must be longer than WEBHOOKS_TIMEOUT_MS (else a live attempt could be sent twice)',
    path: ['WEBHOOKS_CLAIM_LEASE_MS'],
  });

export type WebhooksConfig = z.infer<typeof webhooksConfigSchema>;
