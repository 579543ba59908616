import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { deleteAmqpObjects, testServerUrl, uniqueName } from '@acs/testing';

// Issue 24.5: one RabbitMQ user per service, as deploy/rabbitmq/users.sh makes them, on the real broker
// with unique user, exchange and queue names, deleted after. Identity cannot publish a subscription event;
// keys, like billing, publishes its outboxes' events (api_key.*, quota.threshold, audit.recorded) and reads nothing.
// Both ways the script offers are run, each under user names of its own: rabbitmqctl, and the definitions
// document that compose's broker loads at boot and k8s/broker-users.yaml posts to a managed broker
// (imported here with `rabbitmqctl import_definitions`, the same import).
const SCRIPT = fileURLToPath(new URL('../../../deploy/rabbitmq/users.sh', import.meta.url));
const WAYS = ['rabbitmqctl', 'definitions'] as const;
type Way = (typeof WAYS)[number];
const prefixes: Record<Way, string> = { rabbitmqctl: `${uniqueName('mqacl')}-`, definitions: `${uniqueName('mqdef')}-` };
let userPrefix = prefixes.rabbitmqctl;
const exchange = uniqueName('mqacl.events');
const queue = uniqueName('mqacl.identity');
const passwords = { billing: 'billing-pw-0123456789', identity: 'identity-pw-0123456789', keys: 'keys-pw-0123456789' };
const connections: ChannelModel[] = [];
const env = (way: Way) => ({
  PATH: process.env.PATH ?? '',
  RABBITMQ_BILLING_PASSWORD: passwords.billing,
  RABBITMQ_IDENTITY_PASSWORD: passwords.identity,
  RABBITMQ_KEYS_PASSWORD: passwords.keys,
  RABBITMQ_USER_PREFIX: prefixes[way],
  BUS_EXCHANGE: exchange,
  SUBSCRIPTION_EVENTS_QUEUE: queue,
});

function urlOf(service: keyof typeof passwords): string {
  const url = new URL(testServerUrl('AMQP_URL'));
  url.username = `${userPrefix}${service}`;
  url.password = passwords[service];
  return url.toString();
}

/** What refuses an operation: the channel's error (a refused publish answers no confirm, it closes the channel). */
async function refusal(service: keyof typeof passwords, act: (channel: ConfirmChannel) => unknown): Promise<string> {
  const channel = await channelAs(service);
  const closed = new Promise<Error>((resolve) => channel.once('error', resolve));
  const acted = Promise.resolve()
    .then(() => act(channel))
    .catch((err: Error) => err);
  return (await Promise.race([closed, acted.then((result) => (result instanceof Error ? result : closed))])).message;
}

async function channelAs(service: keyof typeof passwords) {
  const connection = await connect(urlOf(service));
  connection.on('error', () => {});
  connections.push(connection);
  const channel = await connection.createConfirmChannel();
  channel.on('error', () => {});
  return channel;
}

/** The document as the script prints it, without its vhost entry: the shared broker's `/` is left as it is. */
function importDefinitions(): void {
  const document = JSON.parse(execFileSync('sh', [SCRIPT, '--definitions'], { encoding: 'utf8', env: env('definitions') }));
  expect(document.vhosts).toEqual([{ name: '/' }]);
  expect(document.users.map((u: { name: string }) => u.name)).toEqual([
    `${prefixes.definitions}billing`,
    `${prefixes.definitions}identity`,
    `${prefixes.definitions}keys`,
  ]);
  // From standard input (no file argument): the broker's own user could not read a file of this test's.
  execFileSync('rabbitmqctl', ['import_definitions', '--format', 'json'], {
    input: JSON.stringify({ users: document.users, permissions: document.permissions }),
  });
}

/** The import is asynchronous: waits until the broker lists the users it adds. */
async function definitionsImported(): Promise<void> {
  const wanted = Object.keys(passwords).map((service) => `${prefixes.definitions}${service}`);
  for (let attempt = 0; attempt < 50; attempt++) {
    const listed = execFileSync('rabbitmqctl', ['-q', 'list_users'], { encoding: 'utf8' });
    if (wanted.every((user) => listed.includes(`${user}\t`))) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`rabbitmqctl import_definitions did not add ${wanted.join(', ')} within 10 s`);
}

/** rabbitmqctl's view of a user's permissions: configure, write, read. */
function permissionsOf(user: string): string[] {
  const line = execFileSync('rabbitmqctl', ['-q', 'list_user_permissions', user], { encoding: 'utf8' }).trim().split('\n').pop()!;
  return line.split('\t').slice(1);
}

beforeAll(async () => {
  execFileSync('sh', [SCRIPT], { env: env('rabbitmqctl') });
  importDefinitions();
  await definitionsImported();
});
afterAll(async () => {
  for (const connection of connections) await connection.close().catch(() => undefined);
  for (const way of WAYS) {
    for (const service of Object.keys(passwords)) execFileSync('rabbitmqctl', ['delete_user', `${prefixes[way]}${service}`]);
  }
  await deleteAmqpObjects({ queues: [queue, `${queue}.dlq`], exchanges: [exchange] });
});

it('the definitions document gives each user the permissions rabbitmqctl gives it', () => {
  for (const service of Object.keys(passwords)) {
    expect(permissionsOf(`${prefixes.definitions}${service}`)).toEqual(permissionsOf(`${prefixes.rabbitmqctl}${service}`));
  }
});

describe.each(WAYS)('RabbitMQ users per service, made by %s', (way) => {
  beforeAll(() => {
    userPrefix = prefixes[way];
  });

  it('billing declares the events exchange and publishes to it, but declares no queue', async () => {
    const billing = await channelAs('billing');
    await billing.assertExchange(exchange, 'topic', { durable: true });
    billing.publish(exchange, 'subscription.activated', Buffer.from('{}'));
    await billing.waitForConfirms();
    const other = await channelAs('billing');
    await expect(other.assertQueue(`${queue}.stolen`)).rejects.toThrow(/ACCESS_REFUSED/);
  });

  it('identity declares and binds its own queues and reads them, but cannot publish a subscription event', async () => {
    const identity = await channelAs('identity');
    await identity.assertExchange(exchange, 'topic', { durable: true });
    await identity.assertQueue(queue, { durable: true });
    await identity.assertQueue(`${queue}.dlq`, { durable: true });
    await identity.bindQueue(queue, exchange, 'subscription.*');
    // Its retry and dead-letter moves go through the default exchange to its own queues.
    identity.sendToQueue(`${queue}.dlq`, Buffer.from('{}'));
    await identity.waitForConfirms();
    const forger = await channelAs('identity');
    const refused = new Promise<Error>((resolve) => forger.once('error', resolve));
    forger.publish(exchange, 'subscription.activated', Buffer.from('{"userId":1,"forged":true}'));
    expect((await refused).message).toMatch(/ACCESS_REFUSED/);
  });

  it('keys declares the events exchange and publishes its events, but declares no queue, reads none and writes to none directly', async () => {
    const keys = await channelAs('keys');
    await keys.assertExchange(exchange, 'topic', { durable: true });
    for (const routingKey of ['api_key.created', 'api_key.revoked', 'api_key.rolled', 'quota.threshold', 'audit.recorded'])
      keys.publish(exchange, routingKey, Buffer.from('{}'));
    await keys.waitForConfirms();
    expect(await refusal('keys', (c) => c.assertQueue(`${queue}.stolen`))).toMatch(/ACCESS_REFUSED/);
    // identity's queue exists (the test above): keys can neither consume it nor put a message into it.
    expect(await refusal('keys', (c) => c.consume(queue, () => {}))).toMatch(/ACCESS_REFUSED/);
    expect(await refusal('keys', (c) => c.get(queue))).toMatch(/ACCESS_REFUSED/);
    expect(await refusal('keys', (c) => c.sendToQueue(queue, Buffer.from('{"forged":true}')))).toMatch(/ACCESS_REFUSED/);
    // Nor bind anything to the exchange (that needs write on a queue).
    expect(await refusal('keys', (c) => c.bindQueue(queue, exchange, '#'))).toMatch(/ACCESS_REFUSED/);
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
