import { randomBytes, randomInt } from 'node:crypto';
import { createAmqpBus, subscriptionQueueNames, type AmqpBus, type Bus, type BusEnvelope } from '@acs/bus';
import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import {
  captureLogger,
  createTestDatabase,
  RawBroker,
  signedFetch,
  testServerUrl,
  uniqueName,
  waitFor,
  type TestDatabase,
} from '@acs/testing';
import {
  billingConfigSchema,
  startBillingService,
  type BillingConfig,
  type BillingService,
  type BillingServiceOptions,
} from '../src/index.js';
import { silentLogger as silent, type LogLine } from '@acs/testing';

export type { LogLine };
const silentLogger = (): Logger => silent('billing-test');

export const INTERNAL_SECRET = `billing-test-secret-${randomBytes(16).toString('hex')}`;
const AMQP_URL = testServerUrl('AMQP_URL');
export const SUBSCRIPTIONS_PATH = '/api/Subscriptions';
export const PLANS_PATH = '/api/SubscriptionPlans';

/** A user id no other test of this run uses (billing trusts the gateway's userId; identity is not involved). */
export function newUserId(): number {
  return randomInt(1_000_000, 2_000_000_000);
}

function billingConfig(database: TestDatabase, env: Record<string, string> = {}): BillingConfig {
  return billingConfigSchema.parse({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: database.url,
    INTERNAL_SECRET,
    OUTBOX_POLL_INTERVAL_MS: '200',
    OUTBOX_RETRY_MIN_MS: '50',
    OUTBOX_RETRY_MAX_MS: '200',
    ...env,
  });
}

export interface CallOptions {
  /** The gateway-vouched user; omit for a caller without a user JWT. */
  userId?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface BillingHarness {
  database: TestDatabase;
  service: BillingService;
  db: Db;
  url: string;
  call(method: string, path: string, options?: CallOptions): Promise<Response>;
  subscribe(userId: number, body: unknown, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

export interface StartBillingOptions extends BillingServiceOptions {
  bus: Bus;
  env?: Record<string, string>;
  logger?: Logger;
}

/** A billing service on a fresh database, publishing through the given bus (owned by the caller). */
export async function startBilling(options: StartBillingOptions): Promise<BillingHarness> {
  const database = await createTestDatabase('billing');
  let service: BillingService;
  try {
    service = await startBillingService(billingConfig(database, options.env), options.logger ?? silentLogger(), options.bus, options);
  } catch (err) {
    await database.drop();
    throw err;
  }
  const call = (method: string, path: string, callOptions: CallOptions = {}) =>
    signedFetch(service.server.url, INTERNAL_SECRET, method, path, {
      audience: 'billing',
      body: callOptions.body,
      context: {
        keyId: 'test-key',
        scopes: ['system:full-access'],
        ...(callOptions.userId !== undefined ? { userId: callOptions.userId, role: 0 } : {}),
      },
      ...(callOptions.headers ? { headers: callOptions.headers } : {}),
    });
  return {
    database,
    service,
    db: service.db,
    url: service.server.url,
    call,
    subscribe: (userId, body, headers) => call('POST', SUBSCRIPTIONS_PATH, { userId, body, ...(headers ? { headers } : {}) }),
    async stop() {
      await service.close();
      await database.drop();
    },
  };
}

/** A RabbitMQ world for one test file: a unique exchange, buses on it, and everything deleted at the end. */
export class AmqpWorld {
  readonly exchange = uniqueName('billing_test_ex');
  readonly queues = new Set<string>();
  private readonly buses: AmqpBus[] = [];

  private constructor(readonly raw: RawBroker) {}

  static async open(): Promise<AmqpWorld> {
    return new AmqpWorld(await RawBroker.open());
  }

  async bus(url = AMQP_URL): Promise<AmqpBus> {
    const bus = createAmqpBus({
      url,
      exchange: this.exchange,
      logger: captureLogger('billing-test-bus').logger,
      reconnectDelayMs: 50,
      maxReconnectDelayMs: 200,
    });
    this.buses.push(bus);
    if (url === AMQP_URL) await waitFor('a connection to RabbitMQ', () => bus.ready(), 5_000);
    return bus;
  }

  /** Records every subscription event on a queue of its own. */
  async collector(bus: Bus, retryDelaysMs = [50]): Promise<BusEnvelope[]> {
    const queue = uniqueName('billing_test_events');
    for (const name of subscriptionQueueNames(queue, retryDelaysMs)) this.queues.add(name);
    const events: BusEnvelope[] = [];
    await bus.subscribe({ queue, bindings: ['subscription.*'], retryDelaysMs, handler: async (message) => void events.push(message) });
    return events;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.buses.map((bus) => bus.close()));
    await this.raw.deleteAll(this.queues, [this.exchange]);
    await this.raw.close();
  }
}

export interface OutboxRow {
  id: number;
  event_id: string;
  type: string;
  routing_key: string;
  sent_at: Date | null;
  attempts: number;
  last_error: string | null;
}

export async function outboxRows(db: Db): Promise<OutboxRow[]> {
  const { rows } = await db.query<OutboxRow>(
    'SELECT id::int AS id, event_id, type, routing_key, sent_at, attempts, last_error FROM outbox ORDER BY id',
  );
  return rows;
}
