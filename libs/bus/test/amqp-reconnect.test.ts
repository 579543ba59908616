import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BusUnavailableError, createAmqpBus, subscriptionQueueNames, type BusEnvelope, type DeliveryInfo } from '@acs/bus';
import { RawBroker, sleep, startFaultProxy, uniqueName, waitFor, type FaultProxy } from '@acs/testing';
import { AMQP_URL, connectedBus } from './amqp-support.js';
import { buildEnvelope, captureLogs } from './support.js';

const run = promisify(execFile);
const RETRY_DELAYS = [50];

/** rabbitmqctl needs to run on the broker's machine; where it does, it can force-close one named connection. */
async function rabbitmqctlAvailable(): Promise<boolean> {
  try {
    await run('rabbitmqctl', ['status', '--quiet'], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

async function forceCloseConnection(connectionName: string): Promise<void> {
  const { stdout } = await run('rabbitmqctl', ['list_connections', 'pid', 'client_properties', '--quiet', '--no-table-headers'], {
    timeout: 10_000,
  });
  const pids = stdout
    .split('\n')
    .filter((line) => line.includes(`{"connection_name","${connectionName}"}`))
    .map((line) => line.split('\t')[0] ?? '');
  expect(pids).toHaveLength(1);
  await run('rabbitmqctl', ['close_connection', pids[0] ?? '', 'bus reconnect test'], { timeout: 10_000 });
}

describe('amqp bus: losing the broker', () => {
  let raw: RawBroker;
  let proxy: FaultProxy;
  const queues = new Set<string>();
  const exchanges = new Set<string>();

  beforeAll(async () => {
    raw = await RawBroker.open();
    proxy = await startFaultProxy(AMQP_URL, 5672);
  });
  afterAll(async () => {
    await proxy.close();
    await raw.deleteAll(queues, exchanges);
    await raw.close();
  });

  it('rejects publish during an outage, then reconnects and resumes subscriptions and publishing', async () => {
    const logs = captureLogs('bus-reconnect');
    const { bus, exchange } = await connectedBus({ url: proxy.url, logger: logs.logger, reconnectDelayMs: 50, maxReconnectDelayMs: 200 });
    exchanges.add(exchange);
    const queue = uniqueName('bus_test_reconnect');
    for (const name of subscriptionQueueNames(queue, RETRY_DELAYS)) queues.add(name);
    const received: BusEnvelope[] = [];
    await bus.subscribe({
      queue,
      bindings: ['subscription.#'],
      retryDelaysMs: RETRY_DELAYS,
      handler: async (message) => void received.push(message),
    });
    await bus.publish('subscription.activated.v1', buildEnvelope());
    await waitFor('the message before the outage', () => received.length === 1);

    proxy.cut();
    await waitFor('the bus to notice the lost connection', () => !bus.ready());
    await expect(bus.publish('subscription.activated.v1', buildEnvelope())).rejects.toBeInstanceOf(BusUnavailableError);
    // Another publisher keeps going while this consumer is away; its message waits in the queue.
    const whileAway = buildEnvelope();
    await raw.publishRaw(exchange, 'subscription.renewed.v1', Buffer.from(JSON.stringify(whileAway)));
    await sleep(300); // a few refused reconnect attempts

    proxy.restore();
    await waitFor('the bus to reconnect', () => bus.ready());
    const after = buildEnvelope();
    await bus.publish('subscription.activated.v1', after);
    // At-least-once: if the cut beat the first message's ack, it comes again; compare by id.
    const ids = (): Set<string> => new Set(received.map((message) => message.id));
    await waitFor('the messages after the outage', () => ids().has(whileAway.id) && ids().has(after.id));
    expect(received.find((message) => message.id === whileAway.id)).toEqual(whileAway);
    expect(received.find((message) => message.id === after.id)).toEqual(after);
    expect(logs.lines.some((line) => line.includes('bus disconnected from the broker'))).toBe(true);
    expect(logs.lines.some((line) => line.includes('bus reconnect scheduled'))).toBe(true);
    await bus.close();
  });

  it('redelivers a message whose handler was still running when the connection died (no ack before success)', async () => {
    const { bus, exchange } = await connectedBus({ url: proxy.url, reconnectDelayMs: 50, maxReconnectDelayMs: 200 });
    exchanges.add(exchange);
    const queue = uniqueName('bus_test_inflight');
    for (const name of subscriptionQueueNames(queue, RETRY_DELAYS)) queues.add(name);
    let release: () => void = () => undefined;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    const deliveries: Array<{ id: string; info: DeliveryInfo }> = [];
    await bus.subscribe({
      queue,
      bindings: ['#'],
      retryDelaysMs: RETRY_DELAYS,
      handler: async (message, info) => {
        deliveries.push({ id: message.id, info });
        if (deliveries.length === 1) await stuck; // the "process" dies before committing
      },
    });
    try {
      const event = buildEnvelope();
      await bus.publish('subscription.activated.v1', event);
      await waitFor('the first delivery to start', () => deliveries.length === 1);

      proxy.cut();
      await waitFor('the bus to notice the lost connection', () => !bus.ready());
      proxy.restore();
      await waitFor('the redelivery', () => deliveries.length === 2);
      expect(deliveries[1]).toEqual({ id: event.id, info: { attempt: 1, routingKey: 'subscription.activated.v1', redelivered: true } });
    } finally {
      release(); // its ack goes nowhere: the channel it came on is gone
      await bus.close();
    }
  });

  it('rejects publish at once while the broker has never been reachable, and closes cleanly', async () => {
    proxy.cut();
    try {
      const bus = createAmqpBus({
        url: proxy.url,
        exchange: uniqueName('bus_test_ex'),
        logger: captureLogs('bus-down').logger,
        reconnectDelayMs: 50,
      });
      await sleep(150);
      expect(bus.ready()).toBe(false);
      await expect(bus.publish('subscription.activated.v1', buildEnvelope())).rejects.toBeInstanceOf(BusUnavailableError);
      const pending = bus.subscribe({ queue: uniqueName('bus_test_never'), bindings: ['#'], handler: async () => undefined });
      await bus.close();
      await expect(pending).rejects.toBeInstanceOf(BusUnavailableError);
    } finally {
      proxy.restore();
    }
  });

  it('recovers from the broker force-closing its connection (rabbitmqctl close_connection)', async () => {
    // This project's machines run the broker locally, so its CLI is there; a test never skips.
    if (!(await rabbitmqctlAvailable())) throw new Error('rabbitmqctl is not usable here: the broker-initiated close cannot be exercised');
    const connectionName = uniqueName('bus_test_conn');
    const { bus, exchange } = await connectedBus({ connectionName, reconnectDelayMs: 50 });
    exchanges.add(exchange);
    const queue = uniqueName('bus_test_forced');
    for (const name of subscriptionQueueNames(queue, RETRY_DELAYS)) queues.add(name);
    const received: BusEnvelope[] = [];
    await bus.subscribe({ queue, bindings: ['#'], retryDelaysMs: RETRY_DELAYS, handler: async (message) => void received.push(message) });

    await forceCloseConnection(connectionName);
    await waitFor('the bus to notice the forced close', () => !bus.ready());
    await waitFor('the bus to reconnect', () => bus.ready());
    const after = buildEnvelope();
    await bus.publish('subscription.activated.v1', after);
    await waitFor('the message after the forced close', () => received.length === 1);
    expect(received).toEqual([after]);
    await bus.close();
  });
});
