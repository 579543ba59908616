import { lookup } from 'node:dns/promises';
import { fileURLToPath } from 'node:url';
import { internalKeys } from '@acs/config';
import { createBusMetrics, instrumentBus, LateSubscription, type Bus } from '@acs/bus';
import { openConfiguredDatabaseIn, startPeriodicPurge, type Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { listen, startWithCloseStack, type CloseStack, type RunningServer } from '@acs/http';
import { createMetricsRegistry, type Registry } from '@acs/metrics';
import { buildWebhooksApp } from './app.js';
import type { WebhooksConfig } from './config.js';
import { pruneOlderThan } from './data-access/deliveries-repository.js';
import { startFanOutConsumer } from './delivery/fan-out-consumer.js';
import { webhookAgent } from './delivery/post-webhook.js';
import { startSender, type Sender, type SenderSettings } from './delivery/sender.js';
import type { WebhooksDeps } from './domain/deps.js';
import { previousBoxKeys, secretBox } from './domain/secret-box.js';
import type { ResolveHost } from './domain/url-policy.js';

export const WEBHOOKS_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

const PURGE_INTERVAL_MS = 3600_000;

/** Every address of a name, as the system resolver answers it. */
const systemResolve: ResolveHost = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface WebhooksService {
  server: RunningServer;
  db: Db;
  deps: WebhooksDeps;
  /**
   * Settles once the event consumer is subscribed (never rejects). The service does not wait for it: the API and
   * the deliveries already in the table go on while the broker is away (app.ts); events wait in the publishers'
   * outboxes and, once it exists, this service's queue.
   */
  eventsReady: Promise<void>;
  /** The sending loop; `startSender()` makes a new one after it was closed or abandoned (tests). */
  sender: Sender;
  startSender(): Sender;
  close(): Promise<void>;
}

export interface WebhooksServiceOptions {
  /** How host names resolve, at registration and at connection time; a test's stand-in plays a rebinding DNS. */
  resolve?: ResolveHost;
}

function senderSettings(config: WebhooksConfig): SenderSettings {
  return {
    limits: {
      timeoutMs: config.WEBHOOKS_TIMEOUT_MS,
      maxResponseBytes: config.WEBHOOKS_MAX_RESPONSE_BYTES,
      allowPrivate: config.WEBHOOKS_ALLOW_PRIVATE_URLS,
    },
    schedule: { delaysMs: config.WEBHOOKS_RETRY_SCHEDULE, giveUpAfterMs: config.WEBHOOKS_GIVE_UP_AFTER_SECONDS * 1000 },
    maxInFlight: config.WEBHOOKS_MAX_IN_FLIGHT,
    maxInFlightPerEndpoint: config.WEBHOOKS_MAX_IN_FLIGHT_PER_ENDPOINT,
    pollIntervalMs: config.WEBHOOKS_POLL_INTERVAL_MS,
    claimLeaseMs: config.WEBHOOKS_CLAIM_LEASE_MS,
  };
}

/** Deletes deliveries and events older than the retention, every PURGE_INTERVAL_MS. */
function startDeliveryPruning(stack: CloseStack, db: Db, retentionDays: number, logger: Logger): void {
  const purge = startPeriodicPurge(
    async () => {
      const pruned = await pruneOlderThan(db, retentionDays);
      return pruned.deliveries + pruned.events;
    },
    PURGE_INTERVAL_MS,
    logger,
    { done: 'pruned old webhook deliveries', failed: 'could not prune old webhook deliveries' },
  );
  stack.defer('the delivery pruning', () => purge.stop());
}

/** The API on its port, closed with the stack. */
async function listenForRequests(
  stack: CloseStack,
  config: WebhooksConfig,
  logger: Logger,
  deps: WebhooksDeps,
  metrics: Registry,
): Promise<RunningServer> {
  const app = buildWebhooksApp({ deps, internalSecret: internalKeys(config), migrationsDir: WEBHOOKS_MIGRATIONS_DIR, metrics });
  const server = await listen(app.callback(), config.PORT, config.HOST);
  stack.defer('the HTTP server', () => server.close());
  logger.info(
    { url: server.url, queue: config.WEBHOOKS_QUEUE, allowPrivateUrls: config.WEBHOOKS_ALLOW_PRIVATE_URLS },
    'webhooks service listening',
  );
  return server;
}

/** startWebhooksService's steps once the close stack is there, in start-up order (the stack closes them in reverse). */
async function startOnStack(
  stack: CloseStack,
  config: WebhooksConfig,
  logger: Logger,
  bus: Bus,
  resolve: ResolveHost,
): Promise<WebhooksService> {
  const db = await openConfiguredDatabaseIn(stack, 'webhooks', config, WEBHOOKS_MIGRATIONS_DIR, logger);
  const metrics = createMetricsRegistry('webhooks');
  const secrets = secretBox(config.WEBHOOKS_SECRET_KEY, previousBoxKeys(config));
  const settings = senderSettings(config);
  const agent = webhookAgent(resolve, settings.limits, settings.maxInFlight);
  stack.defer('the webhook connections', () => agent.close());
  let sender: Sender | null = null;
  const newSender = (): Sender => {
    sender = startSender(db, logger, secrets, agent, settings);
    return sender;
  };
  newSender();
  stack.defer('the sender', () => sender!.close());
  const deps: WebhooksDeps = {
    db,
    logger,
    secrets,
    urlPolicy: { allowPrivate: config.WEBHOOKS_ALLOW_PRIVATE_URLS, resolve },
    wakeSender: () => sender?.wake(),
  };
  const subscribing = startFanOutConsumer(db, logger, instrumentBus(bus, createBusMetrics(metrics)), {
    queue: config.WEBHOOKS_QUEUE,
    prefetch: config.WEBHOOKS_CONSUMER_PREFETCH,
    onFannedOut: () => sender?.wake(),
  });
  const consumer = new LateSubscription(subscribing, logger, 'could not subscribe to the webhook events queue; events are not fanned out');
  stack.defer('the event consumer', () => consumer.close());
  if (config.WEBHOOKS_RETENTION_DAYS > 0) startDeliveryPruning(stack, db, config.WEBHOOKS_RETENTION_DAYS, logger);
  const server = await listenForRequests(stack, config, logger, deps, metrics);
  return {
    server,
    db,
    deps,
    get sender() {
      return sender!;
    },
    startSender: newSender,
    eventsReady: consumer.ready,
    close: async () => {
      consumer.beginClose();
      await stack.close();
    },
  };
}

/**
 * Starts the webhooks service: its API, its consumer of the event families on the bus (which
 * fans each event out into deliveries) and its sender. The bus is passed in: main.ts makes a
 * RabbitMQ one from AMQP_URL, the embedded mode shares its in-process bus.
 */
export function startWebhooksService(
  config: WebhooksConfig,
  logger: Logger,
  bus: Bus,
  { resolve = systemResolve }: WebhooksServiceOptions = {},
): Promise<WebhooksService> {
  return startWithCloseStack(logger, (stack) => startOnStack(stack, config, logger, bus, resolve));
}
