import { z } from 'zod';
import { amqpUrl, logLevel, port, portOrOff, postgresUrl, redisUrl, secret } from '@acs/config';
import { KEY_PREFIX_PATTERN } from '@acs/auth';

/** `npm start`: the whole system in one process. Every variable is optional. */
export const launcherConfigSchema = z.object({
  PORT: port(8080),
  /** The gateway's address; 127.0.0.1 keeps a development system off the network (set 0.0.0.0 to expose it). */
  HOST: z.string().default('127.0.0.1'),
  /** The gateway's Prometheus listener (GET /metrics, on HOST). Off unless set, so a busy 9464 never stops `npm start`. */
  METRICS_PORT: portOrOff('off'),
  LOG_LEVEL: logLevel(),
  DATA_DIR: z.string().default('./.data'),
  /** A PostgreSQL server: each service gets its own database <name>_<service>, created when missing. */
  DATABASE_URL: postgresUrl().optional(),
  REDIS_URL: redisUrl().optional(),
  REDIS_PREFIX: z.string().default('acs:'),
  /** RabbitMQ for subscription events (billing publishes, identity consumes); unset: an in-process bus. */
  AMQP_URL: amqpUrl().optional(),
  BUS_EXCHANGE: z.string().default('acs.events'),
  /** Passed to billing: subscription period lengths (30 and 365 days by default). */
  BILLING_PERIOD_SECONDS_MONTHLY: z.string().optional(),
  BILLING_PERIOD_SECONDS_YEARLY: z.string().optional(),
  /** Generated once and kept under DATA_DIR when unset. */
  INTERNAL_SECRET: secret().optional(),
  KEY_PREFIX: z.string().regex(KEY_PREFIX_PATTERN, 'expected 2-16 lower-case letters or digits, starting with a letter').default('acs'),
  SEED_API_KEY: z.string().optional(),
  SEED_API_SECRET: z.string().min(32, 'expected at least 32 characters').optional(),
  SEED_API_SCOPES: z.string().default('system:full-access'),
  /** An Admin user (role 2), created or updated at start. */
  SEED_ADMIN_EMAIL: z.string().email().optional(),
  SEED_ADMIN_PASSWORD: z.string().optional(),
  /** Passed to the identity service (see its configuration); unset keeps its defaults. */
  TRIAL_DURATION_SECONDS: z.string().optional(),
  JWT_TTL_SECONDS: z.string().optional(),
  BCRYPT_COST: z.string().optional(),
  /** Passed to identity when set: token keys (else generated once under DATA_DIR), login throttling, the events queue. */
  JWT_SIGNING_KEY: z.string().optional(),
  JWT_VERIFICATION_KEYS: z.string().optional(),
  LOGIN_MAX_FAILURES_PER_ACCOUNT: z.string().optional(),
  LOGIN_MAX_FAILURES_PER_ADDRESS: z.string().optional(),
  LOGIN_FAILURE_WINDOW_SECONDS: z.string().optional(),
  SUBSCRIPTION_EVENTS_QUEUE: z.string().optional(),
  /** Passed to the keys service and the gateway. */
  KEYS_PER_USER: z.string().optional(),
  KEY_USAGE_FLUSH_MS: z.string().optional(),
  /** Rate limits (issue 16): defaults to the gateway, the users' ceiling to the keys service; checked there. */
  RATE_LIMITS_LIVE: z.string().optional(),
  RATE_LIMITS_TEST: z.string().optional(),
  RATE_LIMIT_CEILING: z.string().optional(),
  /** The account dashboard's own HTTP server (on HOST); `0` picks a free port. */
  DASHBOARD_PORT: port(8086),
  /** Proxies in front of the gateway and the dashboard (IPs/CIDRs) whose X-Forwarded-For names the client; passed as is. */
  TRUSTED_PROXIES: z.string().optional(),
  /** Encrypts the dashboard's session cookies; generated once and kept under DATA_DIR when unset. */
  SESSION_SECRET: secret().optional(),
}).refine((c) => !c.SEED_API_KEY || c.SEED_API_SECRET, { message: 'SEED_API_SECRET is required when SEED_API_KEY is set', path: ['SEED_API_SECRET'] })
  .refine((c) => !c.SEED_ADMIN_EMAIL === !c.SEED_ADMIN_PASSWORD, { message: 'SEED_ADMIN_EMAIL and SEED_ADMIN_PASSWORD go together', path: ['SEED_ADMIN_PASSWORD'] });

export type LauncherConfig = z.infer<typeof launcherConfigSchema>;
