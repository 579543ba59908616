import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect, type ChannelModel } from 'amqplib';
import { deleteAmqpObjects, testServerUrl, uniqueName } from '@acs/testing';

// Issue 24.5: one RabbitMQ user per service, as deploy/rabbitmq/users.sh makes them, on the real broker
// with unique user, exchange and queue names, deleted after. Identity cannot publish a subscription event.
const SCRIPT = fileURLToPath(new URL('../../../deploy/rabbitmq/users.sh', import.meta.url));
const userPrefix = `${uniqueName('mqacl')}-`;
const exchange = uniqueName('mqacl.events');
const queue = uniqueName('mqacl.identity');
const passwords = { billing: 'billing-pw-0123456789', identity: 'identity-pw-0123456789' };
const connections: ChannelModel[] = [];

function urlOf(service: keyof typeof passwords): string {
  const url = new URL(testServerUrl('AMQP_URL'));
  url.username = `${userPrefix}${service}`;
  url.password = passwords[service];
  return url.toString();
}

async function channelAs(service: keyof typeof passwords) {
  const connection = await connect(urlOf(service));
  connection.on('error', () => {});
  connections.push(connection);
  const channel = await connection.createConfirmChannel();
  channel.on('error', () => {});
  return channel;
}

beforeAll(() => {
  execFileSync('sh', [SCRIPT], {
    env: {
      PATH: process.env.PATH ?? '',
      RABBITMQ_BILLING_PASSWORD: passwords.billing,
      RABBITMQ_IDENTITY_PASSWORD: passwords.identity,
      RABBITMQ_USER_PREFIX: userPrefix,
      BUS_EXCHANGE: exchange,
      SUBSCRIPTION_EVENTS_QUEUE: queue,
    },
  });
});
afterAll(async () => {
  for (const connection of connections) await connection.close().catch(() => undefined);
  for (const service of Object.keys(passwords)) execFileSync('rabbitmqctl', ['delete_user', `${userPrefix}${service}`]);
  await deleteAmqpObjects({ queues: [queue, `${queue}.dlq`], exchanges: [exchange] });
});

describe('RabbitMQ users per service', () => {
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
});
