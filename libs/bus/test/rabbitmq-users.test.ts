import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { createAmqpBus, subscriptionQueueNames, type AmqpBus, type BusEnvelope } from '@acs/bus';
import { deleteAmqpObjects, testServerUrl, uniqueName, waitFor } from '@acs/testing';
import { buildEnvelope, captureLogs } from './support.js';

// Issue 24.5: one RabbitMQ user per service, as deploy/rabbitmq/users.sh makes them, on the real broker
// with unique user, exchange and queue names, deleted after. Billing and keys publish their outboxes'
// events; identity publishes user.* only (issue 32: user.deleted), so it still cannot forge a
// subscription.* or api_key.* event; identity, keys, billing, device and webhooks (issue 30: keys' and
// billing's events, for users' webhook endpoints) each consume their own queue and no other's. Both ways the script offers are run, each under user names of its own: rabbitmqctl, and the
// definitions document that compose's broker loads at boot and k8s/broker-users.yaml posts to a managed
// broker (imported here with `rabbitmqctl import_definitions`, the same import).
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
async function busAs(service: Service): Promise<AmqpBus> {
  const bus = createAmqpBus({ url: urlOf(service), exchange, logger: captureLogs(`mqacl-${service}`).logger, reconnectDelayMs: 50 });
  buses.push(bus);
  await waitFor(`${service}'s bus connected`, () => bus.ready(), 5_000);
  return bus;
}

/** The document as the script prints it, without its vhost entry: the shared broker's `/` is left as it is. */
function importDefinitions(): void {
  const document = JSON.parse(execFileSync('sh', [SCRIPT, '--definitions'], { encoding: 'utf8', env: env('definitions') }));
  expect(document.vhosts).toEqual([{ name: '/' }]);
  expect(document.users.map((u: { name: string }) => u.name)).toEqual(SERVICES.map((s) => `${prefixes.definitions}${s}`));
  expect(document.topic_permissions).toEqual([
    { user: `${prefixes.definitions}identity`, vhost: '/', exchange, write: '^user\\.', read: '.*' },
  ]);
  // From standard input (no file argument): the broker's own user could not read a file of this test's.
  execFileSync('rabbitmqctl', ['import_definitions', '--format', 'json'], {
    input: JSON.stringify({ users: document.users, permissions: document.permissions, topic_permissions: document.topic_permissions }),
  });
}

/** The import is asynchronous: waits until the broker lists the users it adds and identity's topic permission. */
async function definitionsImported(): Promise<void> {
  const wanted = SERVICES.map((service) => `${prefixes.definitions}${service}`);
  for (let attempt = 0; attempt < 50; attempt++) {
    const listed = execFileSync('rabbitmqctl', ['-q', 'list_users'], { encoding: 'utf8' });
    if (wanted.every((user) => listed.includes(`${user}\t`)) && topicPermissionsOf(`${prefixes.definitions}identity`).length > 0) return;
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

// Both hooks make a rabbitmqctl call per user, each starting an Erlang VM: seconds apiece on a loaded machine.
beforeAll(async () => {
  execFileSync('sh', [SCRIPT], { env: env('rabbitmqctl') });
  importDefinitions();
  await definitionsImported();
}, 120_000);
afterAll(async () => {
  for (const bus of buses) await bus.close().catch(() => undefined);
  for (const connection of connections) await connection.close().catch(() => undefined);
  for (const way of WAYS) {
    for (const service of SERVICES) execFileSync('rabbitmqctl', ['delete_user', `${prefixes[way]}${service}`]);
  }
  await deleteAmqpObjects({
    queues: [
      queue,
      `${queue}.dlq`,
      ...CONSUMERS.flatMap((c) => subscriptionQueueNames(userQueues[c], RETRY_DELAYS_MS)),
      ...subscriptionQueueNames(webhooksQueue, RETRY_DELAYS_MS),
    ],
    exchanges: [exchange],
  });
}, 120_000);

it('the definitions document gives each user the permissions and topic permissions rabbitmqctl gives it', () => {
  for (const service of SERVICES) {
    expect(permissionsOf(`${prefixes.definitions}${service}`)).toEqual(permissionsOf(`${prefixes.rabbitmqctl}${service}`));
    expect(topicPermissionsOf(`${prefixes.definitions}${service}`)).toEqual(topicPermissionsOf(`${prefixes.rabbitmqctl}${service}`));
  }
  expect(topicPermissionsOf(`${prefixes.rabbitmqctl}identity`)).toEqual([`/\t${exchange}\t^user\\.\t.*`]);
});

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
    // Its retry and dead-letter moves go through the default exchange to its own queues.
    identity.sendToQueue(`${queue}.dlq`, Buffer.from('{}'));
    identity.publish(exchange, 'user.deleted', Buffer.from('{"userId":1}'));
    await identity.waitForConfirms();
    for (const forged of ['subscription.activated', 'api_key.revoked', 'plan.quota_changed', 'audit.recorded', 'users.deleted']) {
      const refused = await refusal('identity', (c) => c.publish(exchange, forged, Buffer.from('{"userId":1,"forged":true}')));
      expect(`${forged}: ${refused}`).toMatch(/ACCESS_REFUSED/);
    }
  });

  it('keys declares the events exchange and publishes its events, but reads, binds and writes no queue of another', async () => {
    const keys = await channelAs('keys');
    await keys.assertExchange(exchange, 'topic', { durable: true });
    for (const routingKey of ['api_key.created', 'api_key.revoked', 'api_key.rolled', 'quota.threshold', 'audit.recorded'])
      keys.publish(exchange, routingKey, Buffer.from('{}'));
    await keys.waitForConfirms();
    expect(await refusal('keys', (c) => c.assertQueue(`${queue}.stolen`))).toMatch(/ACCESS_REFUSED/);
    // identity's queue exists (the test above): keys cannot consume it. (Since it consumes a queue of its own,
    // keys may write to the default exchange, where its retries go, as identity may: RabbitMQ cannot limit
    // that exchange's routing keys, so sendToQueue to another's queue is not refused; docs/security.md.)
    expect(await refusal('keys', (c) => c.consume(queue, () => {}))).toMatch(/ACCESS_REFUSED/);
    expect(await refusal('keys', (c) => c.get(queue))).toMatch(/ACCESS_REFUSED/);
    // Nor bind another's queue to the exchange (that needs write on the queue).
    expect(await refusal('keys', (c) => c.bindQueue(queue, exchange, '#'))).toMatch(/ACCESS_REFUSED/);
  });

  it("keys, billing and device each consume identity's user.deleted from their own queue, retries through the default exchange included", async () => {
    const received: Record<Consumer, string[]> = { keys: [], billing: [], device: [] };
    for (const consumer of CONSUMERS) {
      const bus = await busAs(consumer);
      let failedOnce = false;
      // As the services subscribe (queue, .dlq and .retry.* declared, bound to user.*); the first delivery
      // fails once, so the message goes through the retry queue and back.
      await bus.subscribe({
        queue: userQueues[consumer],
        bindings: ['user.*'],
        retryDelaysMs: RETRY_DELAYS_MS,
        handler: async (message: BusEnvelope) => {
          if (!failedOnce) {
            failedOnce = true;
            throw new Error('first attempt fails');
          }
          received[consumer].push(message.id);
        },
      });
    }
    const identity = await busAs('identity');
    const event = buildEnvelope({ type: 'user.deleted.v1', payload: { userId: 7 } });
    await identity.publish('user.deleted', event);
    await waitFor('every consumer received user.deleted', () => CONSUMERS.every((c) => received[c].length > 0), 10_000);
    expect(received).toEqual({ keys: [event.id], billing: [event.id], device: [event.id] });
    // The next way's users consume the same queues: these consumers must not take their messages.
    for (const bus of buses.splice(0)) await bus.close();
  });

  it('each consumer reads and binds its own user-events queue only; device publishes nothing on the exchange', async () => {
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
