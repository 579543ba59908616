import { z } from 'zod';
import {
  amqpUrl,
  configProblems,
  listenerFields,
  port,
  portOrOff,
  postgresUrl,
  redisChoiceProblems,
  redisFields,
  secret,
  type ConfigProblem,
  type Env,
} from '@acs/config';
import { embeddedConfigProblems } from './embedded-configs.js';

/**
 * The variables `npm start` itself reads: where the public listeners go, the shared database
 * server, cache, bus and folder, and the secrets it generates when unset. Every other variable is
 * a service's and reaches it through that service's own schema (embedded-configs.ts).
 */
const launcherFieldsSchema = z.object({
  ...listenerFields(8080),
  /** The gateway's address; 127.0.0.1 keeps a development system off the network (set 0.0.0.0 to expose it). */
  HOST: z.string().default('127.0.0.1'),
  /** The gateway's Prometheus listener (GET /metrics, on HOST). Off unless set, so a busy 9464 never stops `npm start`. */
  METRICS_PORT: portOrOff('off'),
  /** The account dashboard's own HTTP server (on HOST); `0` picks a free port. */
  DASHBOARD_PORT: port(8086),
  DATA_DIR: z.string().default('./.data'),
  /** `pretty`: readable lines for a person; `json`: one JSON object a line. Unset: pretty on a terminal, JSON otherwise. */
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  /** A PostgreSQL server: each service gets its own database <name>_<service>, created when missing. */
  DATABASE_URL: postgresUrl().optional(),
  ...redisFields(),
  /** RabbitMQ for subscription events (billing publishes, identity consumes) and API key events (keys publishes); unset: an in-process bus. */
  AMQP_URL: amqpUrl().optional(),
  BUS_EXCHANGE: z.string().default('acs.events'),
  /** Each service's internal key is derived from it; unset: random keys, made once and kept under DATA_DIR (internal-keys.json). */
  INTERNAL_SECRET: secret().optional(),
  /** Encrypts the dashboard's session cookies; generated once and kept under DATA_DIR when unset. */
  SESSION_SECRET: secret().optional(),
});

/** Pairs that services check only once they run; `npm start` says so before anything starts. */
function pairProblems(env: Env): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (env.SEED_API_KEY && !env.SEED_API_SECRET)
    problems.push({ variable: 'SEED_API_SECRET', expected: 'SEED_API_SECRET is required when SEED_API_KEY is set' });
  problems.push(...redisChoiceProblems(env));
  if (!env.SEED_ADMIN_EMAIL !== !env.SEED_ADMIN_PASSWORD)
    problems.push({ variable: 'SEED_ADMIN_PASSWORD', expected: 'SEED_ADMIN_EMAIL and SEED_ADMIN_PASSWORD go together' });
  return problems;
}

/**
 * `npm start`: the whole system in one process; every variable is optional. The result is the
 * launcher's own fields plus the environment (`env`) the services' configurations are read from.
 */
export const launcherConfigSchema = z.record(z.string(), z.string().optional()).transform((env, ctx) => {
  const own = launcherFieldsSchema.safeParse(env);
  const problems = [...(own.success ? [] : configProblems(own.error)), ...embeddedConfigProblems(env), ...pairProblems(env)];
  for (const { variable, expected } of problems)
    ctx.addIssue({ code: 'custom', message: expected, path: [variable], input: env[variable] });
  if (!own.success || problems.length > 0) return z.NEVER;
  return { ...own.data, env: env as Env };
});

export type LauncherConfig = z.infer<typeof launcherConfigSchema>;
