import { z } from 'zod';
import { amqpUrl, auditFields, outboxFields, redisFields, secret, serviceFields, wholeNumber } from '@acs/config';
import { JWT_AUDIENCE_DEFAULT, JWT_ISSUER_DEFAULT, parsePlanQuota } from '@acs/contracts';
import { privateSigningJwkSchema, publicVerificationJwkSchema } from './domain/jwk.js';

/** A variable holding JSON; problems name the variable and the member, never the value (it may be a private key). */
const json = <S extends z.ZodType>(schema: S, what: string) =>
  z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: `expected ${what} as JSON` });
        return z.NEVER;
      }
    })
    .pipe(schema);

/** A quota as operators write it: `none`, or `<requests>/1mo` and/or `<requests>/1d`, comma-separated. */
const quota = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const parsed = parsePlanQuota(text);
      if (typeof parsed !== 'string') return parsed;
      ctx.addIssue({ code: 'custom', message: `${parsed}; or none` });
      return z.NEVER;
    });

export const identityConfigSchema = z.object({
  ...serviceFields(8083),
  ...auditFields(),
  ...outboxFields(),
  ...redisFields(),
  /** Trial of a new account; 0 means new accounts get no trial. At most a year. */
  TRIAL_DURATION_SECONDS: wholeNumber(0, 366 * 24 * 3600, 14 * 24 * 3600),
  /**
   * Plan quotas (issue 29) of a user on a trial and of a user with neither trial nor subscription:
   * requests per UTC month and/or day, all of the user's keys together (subscribers get their
   * plan's, from billing). Applied to a user's record when it is next written or refilled (24 h at most).
   */
  TRIAL_QUOTA: quota('100000/1mo,10000/1d'),
  NO_SUBSCRIPTION_QUOTA: quota('10000/1mo,1000/1d'),
  /** Lifetime of a login token. The gateway recomputes the role per request, so this bounds only who, not what. */
  JWT_TTL_SECONDS: wholeNumber(60, 24 * 3600, 3600),
  JWT_ISSUER: z.string().min(1).default(JWT_ISSUER_DEFAULT),
  JWT_AUDIENCE: z.string().min(1).default(JWT_AUDIENCE_DEFAULT),
  /**
   * The private Ed25519 JWK (with a kid) that signs tokens. Unset: one is generated once and kept in
   * DATA_DIR/identity/jwt-signing-key.json (fine for one process; replicas must all be given this key).
   */
  JWT_SIGNING_KEY: json(privateSigningJwkSchema, 'a private Ed25519 JWK with a kid').optional(),
  /** Public JWKs of earlier signing keys, still served in the JWKS so their tokens verify until they expire. */
  JWT_VERIFICATION_KEYS: json(
    z.array(publicVerificationJwkSchema, { error: 'expected an array of public JWKs' }),
    'an array of public JWKs',
  ).optional(),
  /**
   * bcrypt work factor: each step doubles the time per hash (figures in docs/performance.md).
   * 11 is the production default; values below 10 are for tests only.
   */
  BCRYPT_COST: wholeNumber(4, 14, 11),
  /** Created or updated at every start as an Admin (at least role 2) with this password. */
  SEED_ADMIN_EMAIL: z.email({ error: 'expected an e-mail address' }).max(254).optional(),
  SEED_ADMIN_PASSWORD: z.string().optional(),
  /**
   * Failed logins per (account, client address) within the window before that pair answers 429: the
   * guesser's own address is stopped, the owner elsewhere is not. The account is the lower-cased
   * e-mail, existing or not, so the answers reveal nothing.
   */
  LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS: wholeNumber(1, 1000, 5),
  /**
   * Failed logins per account from all addresses together (a distributed guess) within the window;
   * past it the account refuses sign-ins from addresses it does not know, while an address it signed
   * in from within LOGIN_KNOWN_ADDRESS_DAYS still signs in.
   */
  LOGIN_MAX_FAILURES_PER_ACCOUNT: wholeNumber(1, 100_000, 50),
  /** Failed logins per client address (IPv6: per /64) across all accounts within the window before 429 (credential stuffing). */
  LOGIN_MAX_FAILURES_PER_ADDRESS: wholeNumber(1, 100_000, 30),
  LOGIN_FAILURE_WINDOW_SECONDS: wholeNumber(1, 24 * 3600, 15 * 60),
  /** How long an address an account signed in from stays known to it (the last 10 per account are kept). */
  LOGIN_KNOWN_ADDRESS_DAYS: wholeNumber(1, 365, 30),
  /** Registrations per client address (IPv6: per /64) within REGISTRATION_WINDOW_SECONDS before 429 (each one hashes a password). */
  REGISTRATION_MAX_PER_ADDRESS: wholeNumber(1, 100_000, 20),
  REGISTRATION_WINDOW_SECONDS: wholeNumber(1, 24 * 3600, 3600),
  /**
   * 32 random bytes in base64 (`openssl rand -base64 32`): encrypts TOTP secrets at rest (AES-256-GCM).
   * Unset: generated once under DATA_DIR/identity (npm start); containers set it from a secret.
   */
  TOTP_ENCRYPTION_KEY: secret().optional(),
  /**
   * Outgoing mail (password reset links), e.g. smtp://user:pass@mail.example.com:587 or smtps://...:465.
   * Unset: mail is appended to the dev mailbox DATA_DIR/identity/mailbox.jsonl, which `npm start`'s
   * dashboard shows at a local-only page.
   */
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'expected an smtp:// or smtps:// URL' }).optional(),
  /** The From of identity's mail. */
  MAIL_FROM: z.string().min(3).max(254).default('Audio Catalog Accounts <no-reply@localhost>'),
  /** The account dashboard's address as users reach it: e-mailed links point there (`/reset-password?token=...`). */
  DASHBOARD_PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).default('http://127.0.0.1:8086'),
  /**
   * RabbitMQ, for billing's subscription events. Used when no bus is passed to startIdentityService
   * (standalone); unset and no bus: no subscription events are consumed.
   */
  AMQP_URL: amqpUrl().optional(),
  BUS_EXCHANGE: z.string().min(1).default('acs.events'),
  /** Identity's durable queue for subscription events (bound to subscription.*); `<queue>.dlq` parks what cannot be applied. */
  SUBSCRIPTION_EVENTS_QUEUE: z.string().min(1).max(200).default('identity.subscription-events'),
  SUBSCRIPTION_EVENTS_MAX_ATTEMPTS: wholeNumber(1, 100, 5),
  /** Days a processed subscription event is remembered (redeliveries, dead-letter replays); a user's latest applied one is kept longer. */
  PROCESSED_EVENTS_RETENTION_DAYS: wholeNumber(1, 3650, 30),
  /** Delays between attempts, comma-separated milliseconds; the last one repeats. */
  SUBSCRIPTION_EVENTS_RETRY_DELAYS_MS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'expected comma-separated milliseconds, e.g. 1000,5000,30000')
    .default('1000,5000,30000,120000')
    .transform((text) => text.split(',').map(Number))
    .refine((delays) => delays.every((delay) => delay >= 1), 'every delay must be at least 1 ms'),
});

export type IdentityConfig = z.infer<typeof identityConfigSchema>;
