import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createAmqpBus, subscriptionQueueNames, DEFAULT_RETRY_DELAYS_MS, type AmqpBus, type BusEnvelope } from '@acs/bus';
import { API_KEY_EVENT_TYPES, API_KEY_ROUTING_KEYS } from '@acs/contracts';
import {
  captureLogger,
  createTestDatabase,
  listenOnLoopback,
  RawBroker,
  signedFetch,
  silentLogger,
  testServerUrl,
  uniqueName,
  waitFor,
  type TestDatabase,
} from '@acs/testing';
import { migrate, openDatabase, type Db } from '@acs/db';
import {
  WEBHOOKS_MIGRATIONS_DIR,
  startWebhooksService,
  webhooksConfigSchema,
  type WebhooksService,
  type WebhooksServiceOptions,
} from '../src/index.js';

const INTERNAL_SECRET = `webhooks-test-secret-${randomBytes(16).toString('hex')}`;

export const newUserId = (): number => randomInt(1_000_000, 2_000_000_000);

/** A database of its own with the webhooks tables, for tests of the statements alone: close db and drop it after. */
export async function migratedDatabase(prefix: string): Promise<{ database: TestDatabase; db: Db }> {
  const database = await createTestDatabase(prefix);
  const db = await openDatabase({ url: database.url, logger: silentLogger() });
  await migrate(db, WEBHOOKS_MIGRATIONS_DIR, silentLogger());
  return { database, db };
}

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** How the receiver answers a request to one path: a status (and a body), or never (the promise it waits on). */
type Answer = number | { status: number; body: string };
export type Behaviour = (request: Received) => Answer | Promise<Answer>;

/** An HTTP server standing in for users' endpoints: records every request and answers per path. */
export class Receiver {
  readonly received: Received[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly open = new Set<ServerResponse>();
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    let receiver: Receiver;
    const server = createServer((req, res) => void receiver.handle(req, res));
    receiver = new Receiver(server, `http://127.0.0.1:${await listenOnLoopback(server)}`);
    return receiver;
  }

  on(path: string, behaviour: Behaviour): string {
    this.behaviours.set(path, behaviour);
    return this.url + path;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request: Received = {
      path: req.url ?? '/',
      headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
      body: Buffer.concat(chunks).toString('utf8'),
    };
    this.received.push(request);
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    const answer = await (this.behaviours.get(request.path) ?? (() => 200))(request);
    const { status, body } = typeof answer === 'number' ? { status: answer, body: 'ok' } : answer;
    if (!res.destroyed) res.writeHead(status).end(body);
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A RabbitMQ exchange and queue of this test file's own, and the bus publishing events to it as keys would. */
export class World {
  readonly exchange = uniqueName('webhooks_test_ex');
  readonly queues = new Set<string>();
  private readonly buses: AmqpBus[] = [];
  private readonly services: { service: WebhooksService; database: TestDatabase }[] = [];
  private constructor(readonly raw: RawBroker) {}

  static async open(): Promise<World> {
    return new World(await RawBroker.open());
  }

  /** A bus on this world's exchange; through another `url` (a fault proxy in front of RabbitMQ) it is not waited for: the broker may be away. */
  async bus(url = testServerUrl('AMQP_URL')): Promise<AmqpBus> {
    const bus = createAmqpBus({
      url,
      exchange: this.exchange,
      logger: captureLogger('webhooks-test-bus').logger,
      reconnectDelayMs: 50,
      maxReconnectDelayMs: 500,
    });
    this.buses.push(bus);
    if (url === testServerUrl('AMQP_URL')) await waitFor('a connection to RabbitMQ', () => bus.ready(), 5_000);
    return bus;
  }

  /**
   * A webhooks service on a fresh database and a queue of its own, consuming this world's exchange. `bus`: the
   * service's own (bus(url)); by default one on this world's broker, whose consumer is subscribed before this returns.
   */
  async service(env: Record<string, string> = {}, options: WebhooksServiceOptions = {}, bus?: AmqpBus): Promise<Harness> {
    const database = await createTestDatabase('webhooks');
    const queue = uniqueName('webhooks_test_q');
    for (const name of subscriptionQueueNames(queue, DEFAULT_RETRY_DELAYS_MS)) this.queues.add(name);
    const config = webhooksConfigSchema.parse({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: database.url,
      INTERNAL_SECRET,
      WEBHOOKS_SECRET_KEY: randomBytes(32).toString('hex'),
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOKS_QUEUE: queue,
      WEBHOOKS_POLL_INTERVAL_MS: '100',
      WEBHOOKS_TIMEOUT_MS: '3000',
      WEBHOOKS_CLAIM_LEASE_MS: '4000',
      ...env,
    });
    const serviceBus = bus ?? (await this.bus());
    const service = await startWebhooksService(config, silentLogger('webhooks-test'), serviceBus, options);
    this.services.push({ service, database });
    // The queue exists once the consumer is subscribed: an event published before would match no queue.
    if (bus === undefined) await service.eventsReady;
    return new Harness(service, serviceBus, database.url);
  }

  async close(): Promise<void> {
    for (const { service, database } of this.services) {
      await service.close().catch(() => {});
      await database.drop();
    }
    await Promise.allSettled(this.buses.map((bus) => bus.close()));
    await this.raw.deleteAll(this.queues, [this.exchange]);
    await this.raw.close();
  }
}

export class Harness {
  constructor(
    readonly service: WebhooksService,
    readonly bus: AmqpBus,
    readonly databaseUrl: string,
  ) {}

  call(method: string, path: string, userId: number, body?: unknown): Promise<Response> {
    return signedFetch(this.service.server.url, INTERNAL_SECRET, method, path, {
      audience: 'webhooks',
      ...(body !== undefined ? { body } : {}),
      context: { keyId: 'test-key', scopes: ['system:full-access'], userId, role: 0 },
    });
  }

  async register(userId: number, url: string, events: string[] = ['api_key.created']): Promise<{ id: string; secret: string }> {
    const response = await this.call('POST', '/api/Webhooks', userId, { url, events });
    if (response.status !== 201) throw new Error(`register answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as { id: string; secret: string };
  }

  /** Publishes an api_key event of `userId` as keys' outbox relay would. */
  async publishKeyEvent(userId: number, kind: 'created' | 'revoked' = 'created', id: string = randomUUID()): Promise<BusEnvelope> {
    const occurredAt = new Date().toISOString();
    const envelope: BusEnvelope = {
      id,
      type: API_KEY_EVENT_TYPES[kind],
      occurredAt,
      payload: {
        eventId: id,
        keyId: randomUUID(),
        userId,
        name: 'ci key',
        scopes: ['read:devices'],
        environment: 'live',
        expiresAt: null,
        sequence: randomInt(1, 1_000_000),
        occurredAt,
      },
    };
    await this.bus.publish(API_KEY_ROUTING_KEYS[kind], envelope);
    return envelope;
  }

  async deliveries(
    userId: number,
    endpointId: string,
  ): Promise<{ id: string; status: string; attempts: number; lastStatus: number | null; lastError: string | null }[]> {
    const response = await this.call('GET', `/api/Webhooks/${endpointId}/Deliveries`, userId);
    if (response.status !== 200) throw new Error(`deliveries answered ${response.status}`);
    return ((await response.json()) as { items: never[] }).items;
  }
}
