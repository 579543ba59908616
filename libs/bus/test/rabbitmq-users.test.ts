import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { SUBSCRIPTION_EVENTS_QUEUE_BINDINGS, USER_DELETED_ROUTING_KEY, USER_EVENTS_BINDING, WEBHOOK_SOURCE_BINDINGS } from '@acs/contracts';
import {
  consumeUserDeleted,
  createAmqpBus,
  DEFAULT_RETRY_DELAYS_MS,
  deadLetterQueueName,
  HEADERS,
  subscriptionExchangeName,
  subscriptionQueueNames,
  type AmqpBus,
  type BusEnvelope,
  type DeliveryInfo,
} from '@acs/bus';
import { deleteAmqpObjects, testServerUrl, uniqueName, waitFor } from '@acs/testing';
import { buildEnvelope, captureLogs, type CapturedLogs } from './support.js';

// Issue 24.5: one RabbitMQ user per service, as deploy/rabbitmq/users.sh makes them, on the real broker
// with unique user, exchange and queue names, deleted after. Billing and keys publish their outboxes'
// events and identity user.* (issue 32: user.deleted), each only the routing keys of its own events (a
// topic permission each), so none can forge another's; identity, keys, billing, device and webhooks (issue
// 30: keys' and billing's events, for users' webhook endpoints) each consume their own queue and no
// other's, retrying and dead-lettering through an exchange of their own: no user writes the default
// exchange, so none can put a message into another's queue. Both ways the script offers are run, each under user names of its own: rabbitmqctl, and the
// definitions document that compose's broker loads at boot and k8s/broker-users.yaml posts to a managed
// broker (imported here with `rabbitmqctl import_definitions`, the same import). The document also declares
// the exchange, each consumer's queue and its bindings: events published before any consumer started wait
// in their queues, and the consumers then start on those queues as the services subscribe.
const SCRIPT = fileURLToPath(new URL('../../../deploy/rabbitmq/users.sh', import.meta.url));
const WAYS = ['rabbitmqctl', 'definitions'] as const;
type Way = (typeof WAYS)[number];
const SERVICES = ['billing', 'device', 'identity', 'keys', 'webhooks'] as const;
type Service = (typeof SERVICES)[number];
const CONSUMERS = ['keys', 'billing', 'device'] as const;
type Consumer = (typeof CONSUMERS)[number];
const prefixes: Record<Way, string> = { rabbitmqctl: `${uniqueName('mqacl')}-`, definitions: `${uniqueName('mqdef')}-` };
let userPrefix = prefixes.rabbitmqctl;
const exchange = uniqueName('mqacl.events');
const queue = uniqueName('mqacl.identity');
/** The webhooks service's queue (WEBHOOKS_QUEUE; webhooks.events in a deployment). */
const webhooksQueue = uniqueName('mqacl.webhooks-events');
/** Each consumer's user-events queue (USER_EVENTS_QUEUE; <service>.user-events in a deployment). */
const userQueues: Record<Consumer, string> = {
  keys: uniqueName('mqacl.keys-user-events'),
  billing: uniqueName('mqacl.billing-user-events'),
  device: uniqueName('mqacl.device-user-events'),
};
const RETRY_DELAYS_MS = [50];
/** Every queue the definitions declare (before any consumer). */
const DECLARED_QUEUES = [userQueues.billing, userQueues.device, queue, userQueues.keys, webhooksQueue];
/** Their bindings to the exchange, as the document lists them and the services subscribe (@acs/contracts; test/deploy/broker-users.test.ts holds the script to them). */
const DECLARED_BINDINGS: [string, string][] = [
  [userQueues.billing, USER_EVENTS_BINDING],
  [userQueues.device, USER_EVENTS_BINDING],
  ...SUBSCRIPTION_EVENTS_QUEUE_BINDINGS.map((pattern): [string, string] => [queue, pattern]),
  [userQueues.keys, USER_EVENTS_BINDING],
  ...WEBHOOK_SOURCE_BINDINGS.map((pattern): [string, string] => [webhooksQueue, pattern]),
];
/** Keys' retry queue as libs/bus named it before its own exchange: it dead-letters through the default exchange. */
const formerRetryQueue = `${userQueues.keys}.retry.${RETRY_DELAYS_MS[0]}`;
/** The publishers' topic permissions on the exchange (users.sh): the routing keys each may publish. */
const TOPIC_WRITE = {
  billing: '^(subscription\\.[a-z_]+|plan\\.[a-z_]+|audit\\.recorded)$',
  identity: '^user\\.',
  keys: '^(api_key\\.[a-z_]+|quota\\.[a-z_]+|audit\\.recorded)$',
} as const;
const PUBLISHERS = Object.keys(TOPIC_WRITE) as (keyof typeof TOPIC_WRITE)[];
/**
 * What billing and keys publish (their outboxes: libs/contracts' routing keys) and a sample of what they
 * must not (another's events, or theirs with a suffix). test/deploy/broker-users.test.ts checks the
 * patterns against every routing key of @acs/contracts, so a new event cannot go unnoticed.
 */
const PUBLISHED = {
  billing: {
    own: ['subscription.activated', 'subscription.changed', 'subscription.canceled', 'plan.quota_changed', 'audit.recorded'],
    forged: ['api_key.created', 'api_key.revoked', 'quota.threshold', 'user.deleted', 'audit.recorded.x', 'subscription.activated.v1'],
  },
  keys: {
    own: [
      'api_key.created',
      'api_key.revoked',
      'api_key.rolled',
      'api_key.expiring',
      'api_key.expired',
      'api_key.exposed',
      'quota.threshold',
      'audit.recorded',
    ],
    forged: ['subscription.activated', 'subscription.canceled', 'plan.quota_changed', 'user.deleted', 'audit.deleted'],
  },
} as const;
const passwords: Record<Service, string> = {
  billing: 'billing-pw-0123456789',
  device: 'device-pw-0123456789',
  identity: 'identity-pw-0123456789',
  keys: 'keys-pw-0123456789',
  webhooks: 'webhooks-pw-0123456789',
};
const connections: ChannelModel[] = [];
const buses: AmqpBus[] = [];
const env = (way: Way) => ({
  PATH: process.env.PATH ?? '',
  RABBITMQ_BILLING_PASSWORD: passwords.billing,
  RABBITMQ_DEVICE_PASSWORD: passwords.device,
  RABBITMQ_IDENTITY_PASSWORD: passwords.identity,
  RABBITMQ_KEYS_PASSWORD: passwords.keys,
  RABBITMQ_WEBHOOKS_PASSWORD: passwords.webhooks,
  RABBITMQ_USER_PREFIX: prefixes[way],
  BUS_EXCHANGE: exchange,
  SUBSCRIPTION_EVENTS_QUEUE: queue,
  KEYS_USER_EVENTS_QUEUE: userQueues.keys,
  BILLING_USER_EVENTS_QUEUE: userQueues.billing,
  DEVICE_USER_EVENTS_QUEUE: userQueues.device,
  WEBHOOKS_QUEUE: webhooksQueue,
});

function urlOf(service: Service): string {
  const url = new URL(testServerUrl('AMQP_URL'));
  url.username = `${userPrefix}${service}`;
  url.password = passwords[service];
  return url.toString();
}

/** What refuses an operation: the channel's error (a refused publish answers no confirm, it closes the channel). */
async function refusal(service: Service, act: (channel: ConfirmChannel) => unknown): Promise<string> {
  const channel = await channelAs(service);
  const closed = new Promise<Error>((resolve) => channel.once('error', resolve));
  const acted = Promise.resolve()
    .then(() => act(channel))
    .catch((err: Error) => err);
  return (await Promise.race([closed, acted.then((result) => (result instanceof Error ? result : closed))])).message;
}

async function channelAs(service: Service) {
  const connection = await connect(urlOf(service));
  connection.on('error', () => {});
  connections.push(connection);
  const channel = await connection.createConfirmChannel();
  channel.on('error', () => {});
  return channel;
}

/** The bus a service's main.ts makes from its AMQP_URL (it declares the exchange on connecting). */
async function busAs(service: Service, logs: CapturedLogs = captureLogs(`mqacl-${service}`)): Promise<AmqpBus> {
  const bus = createAmqpBus({ url: urlOf(service), exchange, logger: logs.logger, reconnectDelayMs: 50 });
  buses.push(bus);
  await waitFor(`${service}'s bus connected`, () => bus.ready(), 5_000);
  return bus;
}

/** Reads a consumer's dead-letter queue as its own user until the message `id` is there (10 s): `<reason> after <attempts>`. */
async function parkedAs(consumer: Consumer, id: string): Promise<string> {
  const channel = await channelAs(consumer);
  for (let waited = 0; waited < 10_000; waited += 50) {
    // Others may be there too: the previous way's, or a raw test message parked as poison.
    const message = await channel.get(deadLetterQueueName(userQueues[consumer]), { noAck: true });
    if (!message) await new Promise((resolve) => setTimeout(resolve, 50));
    else if (message.content.toString('utf8').includes(id)) {
      const headers = message.properties.headers ?? {};
      return `${String(headers[HEADERS.reason])} after ${String(headers[HEADERS.attempts])}`;
    }
  }
  return `${id} not parked within 10 s`;
}

/** The document as the script prints it, without its vhost entry: the shared broker's `/` is left as it is. */
function importDefinitions(): void {
  const document = JSON.parse(execFileSync('sh', [SCRIPT, '--definitions'], { encoding: 'utf8', env: env('definitions') }));
  expect(document.vhosts).toEqual([{ name: '/' }]);
  expect(document.users.map((u: { name: string }) => u.name)).toEqual(SERVICES.map((s) => `${prefixes.definitions}${s}`));
  expect(document.topic_permissions).toEqual(
    PUBLISHERS.map((service) => ({
      user: `${prefixes.definitions}${service}`,
      vhost: '/',
      exchange,
      write: TOPIC_WRITE[service],
      read: '.*',
    })),
  );
  // The exchange as libs/bus declares it, the consumers' queues (as assertQueue(queue, { durable: true })) and their bindings.
  expect(document.exchanges).toEqual([
    { name: exchange, vhost: '/', type: 'topic', durable: true, auto_delete: false, internal: false, arguments: {} },
  ]);
  expect(document.queues).toEqual(DECLARED_QUEUES.map((name) => ({ name, vhost: '/', durable: true, auto_delete: false, arguments: {} })));
  expect(document.bindings).toEqual(
    DECLARED_BINDINGS.map(([destination, pattern]) => ({
      source: exchange,
      vhost: '/',
      destination,
      destination_type: 'queue',
      routing_key: pattern,
      arguments: {},
    })),
  );
  const { vhosts: _shared, ...imported } = document;
  // From standard input (no file argument): the broker's own user could not read a file of this test's.
  execFileSync('rabbitmqctl', ['import_definitions', '--format', 'json'], { input: JSON.stringify(imported) });
}

/** rabbitmqctl's view of the exchange's bindings to queues: `<queue> <pattern>` each. */
function bindingsOfExchange(): string[] {
  return execFileSync('rabbitmqctl', ['-q', 'list_bindings', 'source_name', 'destination_name', 'destination_kind', 'routing_key'], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .map((line) => line.split('\t'))
    .filter(([source, , kind]) => source === exchange && kind === 'queue')
    .map(([, destination, , pattern]) => `${destination} ${pattern}`);
}

/** The import is asynchronous: waits until the broker lists the users it adds, the publishers' topic permissions and the queues' bindings. */
async function definitionsImported(): Promise<void> {
  const wanted = SERVICES.map((service) => `${prefixes.definitions}${service}`);
  for (let attempt = 0; attempt < 50; attempt++) {
    const listed = execFileSync('rabbitmqctl', ['-q', 'list_users'], { encoding: 'utf8' });
    const topics = PUBLISHERS.every((service) => topicPermissionsOf(`${prefixes.definitions}${service}`).length > 0);
    const bound = bindingsOfExchange().length === DECLARED_BINDINGS.length;
    if (wanted.every((user) => listed.includes(`${user}\t`)) && topics && bound) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`rabbitmqctl import_definitions did not add ${wanted.join(', ')} within 10 s`);
}

/** rabbitmqctl's view of a user's permissions: configure, write, read. */
function permissionsOf(user: string): string[] {
  const line = execFileSync('rabbitmqctl', ['-q', 'list_user_permissions', user], { encoding: 'utf8' }).trim().split('\n').pop()!;
  return line.split('\t').slice(1);
}

/** rabbitmqctl's view of a user's topic permissions: one `vhost exchange write read` line each. */
function topicPermissionsOf(user: string): string[] {
  return execFileSync('rabbitmqctl', ['-q', 'list_user_topic_permissions', user], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter((line) => line.includes(exchange));
}

const EARLY_USER_ID = 41;
/** One event for each binding of the definitions, published before any consumer ran: publisher, routing key, the queues it reaches. */
const EARLY_EVENTS: [keyof typeof TOPIC_WRITE, string, string[]][] = [
  ['billing', 'subscription.activated', [queue, webhooksQueue]],
  ['billing', 'plan.quota_changed', [queue]],
  ['billing', 'audit.recorded', [queue]],
  ['keys', 'api_key.created', [webhooksQueue]],
  ['keys', 'quota.threshold', [webhooksQueue]],
  ['keys', 'audit.recorded', [queue]],
  ['identity', USER_DELETED_ROUTING_KEY, CONSUMERS.map((c) => userQueues[c])],
];

/**
 * Publishes EARLY_EVENTS as the publishers' outbox relays do, on their buses (each declares the exchange on
 * connecting: the document's must be alike). Returns what each queue must then hold: `<routing key> <id>` each.
 */
async function publishEarlyEvents(): Promise<Record<string, string[]>> {
  const expected: Record<string, string[]> = Object.fromEntries(DECLARED_QUEUES.map((declared) => [declared, []]));
  for (const publisher of PUBLISHERS) {
    const logs = captureLogs(`mqacl-${publisher}`);
    const bus = await busAs(publisher, logs);
    for (const [from, routingKey, reaches] of EARLY_EVENTS.filter(([from]) => from === publisher)) {
      const id = randomUUID();
      const payload =
        routingKey === USER_DELETED_ROUTING_KEY ? { eventId: id, userId: EARLY_USER_ID, occurredAt: new Date().toISOString() } : { from };
      await bus.publish(routingKey, buildEnvelope({ id, type: `${routingKey}.v1`, payload }));
      for (const declared of reaches) expected[declared]!.push(`${routingKey} ${id}`);
    }
    // Each publish confirmed, and none "matched no queue" (the bus logs those): the events lost before.
    const unroutable = logs.lines.filter((line) => line.includes('matched no queue'));
    expect(`${publisher}: ${unroutable.join('\n')}`).toBe(`${publisher}: `);
  }
  for (const bus of buses.splice(0)) await bus.close();
  return expected;
}

// Each rabbitmqctl call starts an Erlang VM: a few seconds each on a loaded machine, a dozen or more per hook.
const RABBITMQCTL_HOOK_TIMEOUT_MS = 120_000;

beforeAll(async () => {
  execFileSync('sh', [SCRIPT], { env: env('rabbitmqctl') });
  importDefinitions();
  await definitionsImported();
}, RABBITMQCTL_HOOK_TIMEOUT_MS);
afterAll(async () => {
  for (const bus of buses) await bus.close().catch(() => undefined);
  for (const connection of connections) await connection.close().catch(() => undefined);
  for (const way of WAYS) {
    for (const service of SERVICES) execFileSync('rabbitmqctl', ['delete_user', `${prefixes[way]}${service}`]);
  }
  // The queues the definitions declared, with each subscription's own (this test's retry delays, and the defaults
  // of the user-events consumers); the exchange below is the definitions' too.
  const retryDelays = [...RETRY_DELAYS_MS, ...DEFAULT_RETRY_DELAYS_MS];
  await deleteAmqpObjects({
    queues: [
      formerRetryQueue,
      ...DECLARED_QUEUES.flatMap((declared) => subscriptionQueueNames(declared, retryDelays)),
      ...CONSUMERS.map((c) => `${userQueues[c]}.relay`),
    ],
    // The subscriptions' own exchanges are auto-delete (gone with their queues); deleted here in case a test failed half-way.
    exchanges: [
      exchange,
      subscriptionExchangeName(queue),
      subscriptionExchangeName(webhooksQueue),
      ...CONSUMERS.map((c) => subscriptionExchangeName(userQueues[c])),
    ],
  });
}, RABBITMQCTL_HOOK_TIMEOUT_MS);

it(
  'the definitions document gives each user the permissions and topic permissions rabbitmqctl gives it',
  () => {
    for (const service of SERVICES) {
      expect(permissionsOf(`${prefixes.definitions}${service}`)).toEqual(permissionsOf(`${prefixes.rabbitmqctl}${service}`));
      expect(topicPermissionsOf(`${prefixes.definitions}${service}`)).toEqual(topicPermissionsOf(`${prefixes.rabbitmqctl}${service}`));
    }
    for (const service of PUBLISHERS) {
      expect(topicPermissionsOf(`${prefixes.rabbitmqctl}${service}`)).toEqual([`/\t${exchange}\t${TOPIC_WRITE[service]}\t.*`]);
    }
    expect(topicPermissionsOf(`${prefixes.rabbitmqctl}device`)).toEqual([]);
  },
  RABBITMQCTL_HOOK_TIMEOUT_MS,
);

it(
  "the definitions declare each consumer's queue and bindings: events published before any consumer started wait there, and the consumers then start on those queues",
  async () => {
    userPrefix = prefixes.definitions;
    expect(bindingsOfExchange().sort()).toEqual(DECLARED_BINDINGS.map(([q, pattern]) => `${q} ${pattern}`).sort());
    // Nothing of this test has consumed or declared them: empty, and no consumer.
    const administrator = await connect(testServerUrl('AMQP_URL'));
    connections.push(administrator);
    const admin = await administrator.createChannel();
    const counts = async () => {
      const listed: Record<string, string> = {};
      for (const declared of DECLARED_QUEUES) {
        const { messageCount, consumerCount } = await admin.checkQueue(declared);
        listed[declared] = `${messageCount} messages, ${consumerCount} consumers`;
      }
      return listed;
    };
    expect(await counts()).toEqual(Object.fromEntries(DECLARED_QUEUES.map((declared) => [declared, '0 messages, 0 consumers'])));

    const expected = await publishEarlyEvents();
    // Kept in each queue whose bindings match them, still with no consumer.
    const kept = Object.fromEntries(DECLARED_QUEUES.map((declared) => [declared, `${expected[declared]!.length} messages, 0 consumers`]));
    await waitFor('the events counted in their queues', async () => JSON.stringify(await counts()) === JSON.stringify(kept), 5_000).catch(
      () => undefined,
    );
    expect(await counts()).toEqual(kept);

    // The consumers start as the services subscribe, on the queues already there (declared alike: no
    // PRECONDITION_FAILED), and receive what waited.
    const received: Record<string, string[]> = Object.fromEntries(DECLARED_QUEUES.map((declared) => [declared, []]));
    for (const [service, declared, bindings] of [
      ['identity', queue, SUBSCRIPTION_EVENTS_QUEUE_BINDINGS],
      ['webhooks', webhooksQueue, WEBHOOK_SOURCE_BINDINGS],
    ] as const) {
      await (await busAs(service)).subscribe({
        queue: declared,
        bindings: [...bindings],
        retryDelaysMs: RETRY_DELAYS_MS,
        handler: async (message, info) => void received[declared]!.push(`${info.routingKey} ${message.id}`),
      });
    }
    for (const consumer of CONSUMERS) {
      const declared = userQueues[consumer];
      await consumeUserDeleted(await busAs(consumer), declared, async (userId) => void received[declared]!.push(`erased user ${userId}`));
    }
    await waitFor('every kept event received', () => DECLARED_QUEUES.every((d) => received[d]!.length === expected[d]!.length), 10_000);
    const sorted = (byQueue: Record<string, string[]>) =>
      Object.fromEntries(Object.entries(byQueue).map(([q, list]) => [q, [...list].sort()]));
    const erased = Object.fromEntries(CONSUMERS.map((c) => [userQueues[c], [`erased user ${EARLY_USER_ID}`]]));
    expect(sorted(received)).toEqual(sorted({ ...expected, ...erased }));
    for (const bus of buses.splice(0)) await bus.close();
  },
  RABBITMQCTL_HOOK_TIMEOUT_MS,
);

describe.each(WAYS)('RabbitMQ users per service, made by %s', (way) => {
  beforeAll(() => {
    userPrefix = prefixes[way];
  });

  it('billing declares the events exchange and publishes to it, but declares no queue of another', async () => {
    const billing = await channelAs('billing');
    await billing.assertExchange(exchange, 'topic', { durable: true });
    billing.publish(exchange, 'subscription.activated', Buffer.from('{}'));
    await billing.waitForConfirms();
    expect(await refusal('billing', (c) => c.assertQueue(`${queue}.stolen`))).toMatch(/ACCESS_REFUSED/);
    expect(await refusal('billing', (c) => c.assertQueue(userQueues.keys))).toMatch(/ACCESS_REFUSED/);
  });

  it('identity declares and binds its own queues and reads them, publishes user.*, but cannot publish a subscription.* or api_key.* event', async () => {
    const identity = await channelAs('identity');
    await identity.assertExchange(exchange, 'topic', { durable: true });
    await identity.assertQueue(queue, { durable: true });
    await identity.assertQueue(`${queue}.dlq`, { durable: true });
    await identity.bindQueue(queue, exchange, 'subscription.*');
    // Its retry and dead-letter moves go through its own exchange to its own queues (libs/bus, topology.ts).
    const own = subscriptionExchangeName(queue);
    await identity.assertExchange(own, 'direct', { durable: true, autoDelete: true });
    await identity.bindQueue(`${queue}.dlq`, own, `${queue}.dlq`);
    await identity.purgeQueue(`${queue}.dlq`);
    identity.publish(own, `${queue}.dlq`, Buffer.from('{}'));
    identity.publish(exchange, 'user.deleted', Buffer.from('{"userId":1}'));
    await identity.waitForConfirms();
    expect((await identity.checkQueue(`${queue}.dlq`)).messageCount).toBe(1);
    // Not through the default exchange, not even to its own queue.
    expect(await refusal('identity', (c) => c.sendToQueue(`${queue}.dlq`, Buffer.from('{}')))).toMatch(/ACCESS_REFUSED/);
    for (const forged of ['subscription.activated', 'api_key.revoked', 'plan.quota_changed', 'audit.recorded', 'users.deleted']) {
      const refused = await refusal('identity', (c) => c.publish(exchange, forged, Buffer.from('{"userId":1,"forged":true}')));
      expect(`${forged}: ${refused}`).toMatch(/ACCESS_REFUSED/);
    }
  });

  it.each(['billing', 'keys'] as const)("%s publishes its own events' routing keys on the exchange, and no other's", async (publisher) => {
    const channel = await channelAs(publisher);
    await channel.assertExchange(exchange, 'topic', { durable: true });
    for (const routingKey of PUBLISHED[publisher].own) channel.publish(exchange, routingKey, Buffer.from('{}'));
    await channel.waitForConfirms();
    for (const forged of PUBLISHED[publisher].forged) {
      const refused = await refusal(publisher, (c) => c.publish(exchange, forged, Buffer.from('{"forged":true}')));
      expect(`${publisher} ${forged}: ${refused}`).toMatch(/ACCESS_REFUSED/);
    }
  });

  it('keys declares the events exchange, but reads, binds and writes no queue of another', async () => {
    const keys = await channelAs('keys');
    await keys.assertExchange(exchange, 'topic', { durable: true });
    expect(await refusal('keys', (c) => c.assertQueue(`${queue}.stolen`))).toMatch(/ACCESS_REFUSED/);
    // identity's queue exists (the test above): keys cannot consume it, nor put a message into it through
    // the default exchange (no user writes that one) or identity's own exchange.
    expect(await refusal('keys', (c) => c.consume(queue, () => {}))).toMatch(/ACCESS_REFUSED/);
    expect(await refusal('keys', (c) => c.sendToQueue(queue, Buffer.from('{}')))).toMatch(/ACCESS_REFUSED/);
    expect(await refusal('keys', (c) => c.publish(subscriptionExchangeName(queue), `${queue}.dlq`, Buffer.from('{}')))).toMatch(
      /ACCESS_REFUSED/,
    );
    expect(await refusal('keys', (c) => c.get(queue))).toMatch(/ACCESS_REFUSED/);
    // Nor bind another's queue to the exchange (that needs write on the queue).
    expect(await refusal('keys', (c) => c.bindQueue(queue, exchange, '#'))).toMatch(/ACCESS_REFUSED/);
  });

  it('a subscription starts beside its former retry queue (through the default exchange), whose messages still arrive', async () => {
    // The queues as the previous libs/bus left them, declared with the permissions of then (here: the broker's administrator).
    const admin = await connect(testServerUrl('AMQP_URL'));
    connections.push(admin);
    const old = await admin.createConfirmChannel();
    await old.assertQueue(userQueues.keys, { durable: true });
    await old.assertQueue(formerRetryQueue, {
      durable: true,
      messageTtl: 200,
      deadLetterExchange: '',
      deadLetterRoutingKey: userQueues.keys,
    });
    const bus = await busAs('keys');
    const received: DeliveryInfo[] = [];
    await bus.subscribe({
      queue: userQueues.keys,
      bindings: ['user.*'],
      retryDelaysMs: RETRY_DELAYS_MS,
      handler: async (_message, info) => void received.push(info),
    });
    // A retry that was waiting when the service was upgraded: its attempt and routing key in its headers.
    const waiting = buildEnvelope({ type: 'user.deleted.v1', payload: { userId: 9 } });
    old.sendToQueue(formerRetryQueue, Buffer.from(JSON.stringify(waiting)), {
      persistent: true,
      headers: { [HEADERS.attempt]: 2, [HEADERS.routingKey]: 'user.deleted' },
    });
    await old.waitForConfirms();
    await waitFor('the former retry queue emptied into the queue', () => received.length > 0, 5_000);
    expect(received).toEqual([{ attempt: 2, routingKey: 'user.deleted', redelivered: false }]);
    for (const open of buses.splice(0)) await open.close();
  });

  it("keys, billing and device each consume identity's user.deleted from their own queue, retrying and dead-lettering through their own exchange", async () => {
    const received: Record<Consumer, string[]> = { keys: [], billing: [], device: [] };
    for (const consumer of CONSUMERS) {
      const bus = await busAs(consumer);
      // As the services subscribe (queue, .dlq and .retry.* declared, bound to user.*), with 2 attempts: a
      // message failing once goes through the retry queue and back, one failing always is parked.
      await bus.subscribe({
        queue: userQueues[consumer],
        bindings: ['user.*'],
        retryDelaysMs: RETRY_DELAYS_MS,
        maxAttempts: 2,
        handler: async (message: BusEnvelope, info: DeliveryInfo) => {
          const { fail } = message.payload as { fail: 'once' | 'always' };
          if (fail === 'always' || info.attempt === 1) throw new Error(`attempt ${info.attempt} fails`);
          received[consumer].push(message.id);
        },
      });
    }
    const identity = await busAs('identity');
    const retried = buildEnvelope({ type: 'user.deleted.v1', payload: { userId: 7, fail: 'once' } });
    const parked = buildEnvelope({ type: 'user.deleted.v1', payload: { userId: 8, fail: 'always' } });
    await identity.publish('user.deleted', retried);
    await identity.publish('user.deleted', parked);
    await waitFor('every consumer received user.deleted', () => CONSUMERS.every((c) => received[c].length > 0), 10_000);
    expect(received).toEqual({ keys: [retried.id], billing: [retried.id], device: [retried.id] });
    for (const consumer of CONSUMERS)
      expect(`${consumer}: ${await parkedAs(consumer, parked.id)}`).toBe(`${consumer}: max-attempts after 2`);
    // The next way's users consume the same queues: these consumers must not take their messages.
    for (const bus of buses.splice(0)) await bus.close();
  });

  it('each consumer reads, binds and writes its own user-events queue only; device publishes nothing on the exchange', async () => {
    for (const [consumer, other] of [
      ['keys', 'billing'],
      ['billing', 'device'],
      ['device', 'keys'],
    ] as const) {
      const stolen = userQueues[other];
      expect(`${consumer} consume ${other}: ${await refusal(consumer, (c) => c.consume(stolen, () => {}))}`).toMatch(/ACCESS_REFUSED/);
      expect(`${consumer} get ${other}: ${await refusal(consumer, (c) => c.get(stolen))}`).toMatch(/ACCESS_REFUSED/);
      expect(`${consumer} bind ${other}: ${await refusal(consumer, (c) => c.bindQueue(stolen, exchange, '#'))}`).toMatch(/ACCESS_REFUSED/);
      expect(`${consumer} consume identity's: ${await refusal(consumer, (c) => c.consume(queue, () => {}))}`).toMatch(/ACCESS_REFUSED/);
      // No message into another's queue: not through the default exchange (no user writes it), not through
      // the other's own exchange, not by declaring a queue of its own that dead-letters into either.
      const inject = (c: ConfirmChannel) => c.sendToQueue(stolen, Buffer.from('{"forged":true}'));
      expect(`${consumer} send to ${other}: ${await refusal(consumer, inject)}`).toMatch(/ACCESS_REFUSED/);
      const viaOwn = (c: ConfirmChannel) => c.publish(subscriptionExchangeName(stolen), stolen, Buffer.from('{"forged":true}'));
      expect(`${consumer} publish to ${other}'s exchange: ${await refusal(consumer, viaOwn)}`).toMatch(/ACCESS_REFUSED/);
      for (const deadLetterExchange of ['', subscriptionExchangeName(stolen)]) {
        const relay = (c: ConfirmChannel) =>
          c.assertQueue(`${userQueues[consumer]}.relay`, { deadLetterExchange, deadLetterRoutingKey: stolen, messageTtl: 1 });
        expect(`${consumer} dead-letter into '${deadLetterExchange}': ${await refusal(consumer, relay)}`).toMatch(/ACCESS_REFUSED/);
      }
    }
    expect(await refusal('device', (c) => c.publish(exchange, 'user.deleted', Buffer.from('{}')))).toMatch(/ACCESS_REFUSED/);
    expect(await refusal('device', (c) => c.assertQueue(`${queue}.stolen`))).toMatch(/ACCESS_REFUSED/);
  });

  it("webhooks consumes keys' and billing's events from its own queue, retries included, and publishes nothing", async () => {
    const webhooks = await busAs('webhooks');
    const received: string[] = [];
    let failedOnce = false;
    // As the service subscribes (src/delivery/fan-out-consumer.ts); the first delivery fails once.
    await webhooks.subscribe({
      queue: webhooksQueue,
      bindings: ['api_key.*', 'quota.threshold', 'subscription.*'],
      retryDelaysMs: RETRY_DELAYS_MS,
      handler: async (message: BusEnvelope) => {
        if (!failedOnce) {
          failedOnce = true;
          throw new Error('first attempt fails');
        }
        received.push(message.type);
      },
    });
    const keys = await busAs('keys');
    await keys.publish('api_key.created', buildEnvelope({ type: 'api_key.created.v1', payload: { userId: 7 } }));
    const billing = await busAs('billing');
    await billing.publish('subscription.activated', buildEnvelope({ type: 'subscription.activated.v1', payload: { userId: 7 } }));
    await waitFor('webhooks received both events', () => received.length >= 2, 10_000);
    expect(received.sort()).toEqual(['api_key.created.v1', 'subscription.activated.v1']);
    for (const bus of buses.splice(0)) await bus.close();

    expect(await refusal('webhooks', (c) => c.publish(exchange, 'api_key.created', Buffer.from('{}')))).toMatch(/ACCESS_REFUSED/);
    // No write on the default exchange either: it cannot put a message straight into another's queue.
    expect(await refusal('webhooks', (c) => c.publish('', userQueues.keys, Buffer.from('{}')))).toMatch(/ACCESS_REFUSED/);
    for (const stolen of [queue, userQueues.keys]) {
      expect(`webhooks consume ${stolen}: ${await refusal('webhooks', (c) => c.consume(stolen, () => {}))}`).toMatch(/ACCESS_REFUSED/);
      expect(`webhooks bind ${stolen}: ${await refusal('webhooks', (c) => c.bindQueue(stolen, exchange, '#'))}`).toMatch(/ACCESS_REFUSED/);
    }
    expect(await refusal('webhooks', (c) => c.assertQueue(`${queue}.stolen`))).toMatch(/ACCESS_REFUSED/);
    // Nor may another service read or bind the webhooks queue (the users' events, user ids included).
    expect(await refusal('device', (c) => c.consume(webhooksQueue, () => {}))).toMatch(/ACCESS_REFUSED/);
    expect(await refusal('keys', (c) => c.bindQueue(webhooksQueue, exchange, '#'))).toMatch(/ACCESS_REFUSED/);
  });

  it("identity binds its queue to billing's plan quota events and to audit entries too, and receives what billing and keys publish", async () => {
    const identity = await channelAs('identity');
    await identity.assertQueue(queue, { durable: true });
    for (const binding of ['subscription.*', 'plan.*', 'audit.recorded']) await identity.bindQueue(queue, exchange, binding);
    await identity.purgeQueue(queue);
    const billing = await channelAs('billing');
    billing.publish(exchange, 'plan.quota_changed', Buffer.from('{"from":"billing"}'));
    billing.publish(exchange, 'audit.recorded', Buffer.from('{"from":"billing"}'));
    await billing.waitForConfirms();
    const keys = await channelAs('keys');
    keys.publish(exchange, 'audit.recorded', Buffer.from('{"from":"keys"}'));
    // Not bound: identity's queue does not receive API key events.
    keys.publish(exchange, 'api_key.created', Buffer.from('{"from":"keys"}'));
    await keys.waitForConfirms();
    const received: string[] = [];
    for (let attempt = 0; attempt < 50 && received.length < 3; attempt++) {
      const message = await identity.get(queue, { noAck: true });
      if (message) received.push(`${message.fields.routingKey} ${message.content.toString()}`);
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(received).toEqual([
      'plan.quota_changed {"from":"billing"}',
      'audit.recorded {"from":"billing"}',
      'audit.recorded {"from":"keys"}',
    ]);
    expect(await identity.get(queue, { noAck: true })).toBe(false);
  });
});
