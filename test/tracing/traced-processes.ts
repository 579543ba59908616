import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { subscriptionQueueNames } from '@acs/bus';
import { identityConfigSchema } from '@acs/identity-service';
import { deleteAmqpObjects, deleteRedisKeys, testServerUrl, uniqueName } from '@acs/testing';
import { startProcess, type ServiceProcess } from '../../bench/src/processes.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

const INTERNAL_SECRET = 'trace-test-internal-secret-0123456789ab';
const SYSTEM_KEY = 'acs_live_TraceSystemKey0000000000001';
const SYSTEM_SECRET = 'trace-test-secret-that-is-long-enough-000';

export interface TracedSystem {
  receiver: OtlpReceiver;
  gatewayUrl: string;
  /** Calls the gateway with the system key (it holds every scope). */
  call(method: string, path: string, init?: { body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  /** Registers and signs in a new user; returns the JWT. */
  signUp(): Promise<{ email: string; password: string; token: string }>;
  stop(): Promise<void>;
}

export interface TracedSystemOptions {
  /** Added to every process's environment (OTEL_* and others). */
  env: Record<string, string>;
  /** Added to the gateway's only. */
  gatewayEnv?: Record<string, string>;
  /** Also billing, with billing and identity on RabbitMQ (an exchange and a queue of this run's own). */
  withBilling?: boolean;
}

/** This run's own names: its databases (`<base>_<service>`), Redis prefix, RabbitMQ exchange and queue. */
interface RunNames {
  base: string;
  redisPrefix: string;
  exchange: string;
  queue: string;
  withBilling: boolean;
  /** The services with a database of their own. */
  services: string[];
}

function runNames(withBilling: boolean): RunNames {
  const base = uniqueName('acs_trace');
  return {
    base,
    redisPrefix: `${base}:`,
    exchange: `${base}.events`,
    queue: `${base}.subscription-events`,
    withBilling,
    services: withBilling ? ['keys', 'identity', 'billing'] : ['keys', 'identity'],
  };
}

function databaseUrl(names: RunNames, service: string): string {
  const url = new URL(testServerUrl('DATABASE_URL'));
  url.pathname = `/${names.base}_${service}`;
  return url.toString();
}

// The RabbitMQ names are this run's own; the queues are durable, so stop() removes them. Keys publishes
// its key events on the exchange in every run; identity and billing use the bus only with billing.
function keysBusEnv(names: RunNames): Record<string, string> {
  return { AMQP_URL: testServerUrl('AMQP_URL'), BUS_EXCHANGE: names.exchange };
}

function subscriptionBusEnv(names: RunNames): Record<string, string> {
  return names.withBilling ? { ...keysBusEnv(names), SUBSCRIPTION_EVENTS_QUEUE: names.queue } : {};
}

/** Every process's environment: the internal secret, Redis under the run's prefix, the exporter aimed at the receiver. */
function commonEnv(names: RunNames, receiver: OtlpReceiver, env: Record<string, string>): Record<string, string> {
  return {
    INTERNAL_SECRET,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    REDIS_URL: testServerUrl('REDIS_URL'),
    REDIS_PREFIX: names.redisPrefix,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    // Spans leave within 200 ms instead of 5 s: the tests wait for them.
    OTEL_BSP_SCHEDULE_DELAY: '200',
    ...env,
  };
}

/** Keys, identity, billing (when asked), then the gateway; each is pushed on `started` once up, for stopRun. Returns the gateway. */
async function startProcesses(
  names: RunNames,
  common: Record<string, string>,
  gatewayEnv: Record<string, string>,
  started: ServiceProcess[],
): Promise<ServiceProcess> {
  const bus = subscriptionBusEnv(names);
  const keys = await startProcess('keys', 'services/keys/dist/main.js', {
    ...common,
    DATABASE_URL: databaseUrl(names, 'keys'),
    ...keysBusEnv(names),
    SEED_API_KEY: SYSTEM_KEY,
    SEED_API_SECRET: SYSTEM_SECRET,
    SEED_API_SCOPES: 'system:full-access',
  });
  started.push(keys);
  const identity = await startProcess('identity', 'services/identity/dist/main.js', {
    ...common,
    DATABASE_URL: databaseUrl(names, 'identity'),
    BCRYPT_COST: '4',
    ...bus,
  });
  started.push(identity);
  const billing = names.withBilling
    ? await startProcess('billing', 'services/billing/dist/main.js', { ...common, DATABASE_URL: databaseUrl(names, 'billing'), ...bus })
    : undefined;
  if (billing) started.push(billing);
  const gateway = await startProcess('gateway', 'gateway/dist/main.js', {
    ...common,
    METRICS_PORT: 'off',
    KEYS_URL: keys.url,
    IDENTITY_URL: identity.url,
    ...(billing ? { BILLING_URL: billing.url } : {}),
    ...gatewayEnv,
  });
  started.push(gateway);
  return gateway;
}

/** Stops what started, then removes what the run made: its Redis keys, RabbitMQ objects and databases. */
async function stopRun(names: RunNames, started: ServiceProcess[], receiver: OtlpReceiver): Promise<void> {
  // The gateway first: it sends key usage to the keys service as it stops.
  for (const p of started.reverse()) await p.stop();
  await receiver.close();
  await deleteRedisKeys(names.redisPrefix);
  const retryDelays = identityConfigSchema.shape.SUBSCRIPTION_EVENTS_RETRY_DELAYS_MS.parse(undefined);
  await deleteAmqpObjects({
    queues: names.withBilling ? subscriptionQueueNames(names.queue, retryDelays) : [],
    exchanges: [names.exchange],
  });
  const admin = new pg.Client({ connectionString: testServerUrl('DATABASE_URL') });
  await admin.connect();
  try {
    for (const service of names.services) await admin.query(`DROP DATABASE IF EXISTS "${names.base}_${service}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/** A call to the gateway with the system key; a body is sent as JSON. */
function callGateway(
  gatewayUrl: string,
  method: string,
  path: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(gatewayUrl + path, {
    method,
    headers: {
      'x-api-key': SYSTEM_KEY,
      'x-api-secret': SYSTEM_SECRET,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

/** Registers and signs in a new user through `call`; returns the JWT with the credentials. */
async function signUp(call: TracedSystem['call']): Promise<{ email: string; password: string; token: string }> {
  const email = `trace-${randomBytes(6).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const registered = await call('POST', '/api/Users/Register', { body: { email, password, firstName: 'Trace', lastName: 'Test' } });
  if (registered.status !== 201 && registered.status !== 200) throw new Error(`register answered ${registered.status}`);
  const login = await call('POST', '/api/Users/Login', { body: { email, password } });
  if (login.status !== 200) throw new Error(`login answered ${login.status}`);
  const { token } = (await login.json()) as { token: string };
  return { email, password, token };
}

/**
 * Gateway, keys and identity (and billing when asked) as separate processes on PostgreSQL and
 * Redis (their own database names and Redis prefix), exporting to an in-test OTLP receiver.
 */
export async function startTracedSystem({ env, gatewayEnv = {}, withBilling = false }: TracedSystemOptions): Promise<TracedSystem> {
  const receiver = await startOtlpReceiver();
  const names = runNames(withBilling);
  const started: ServiceProcess[] = [];
  const stop = (): Promise<void> => stopRun(names, started, receiver);
  try {
    const gateway = await startProcesses(names, commonEnv(names, receiver, env), gatewayEnv, started);
    const call: TracedSystem['call'] = (method, path, init) => callGateway(gateway.url, method, path, init);
    return { receiver, gatewayUrl: gateway.url, call, signUp: () => signUp(call), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
