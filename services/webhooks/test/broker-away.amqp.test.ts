import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFaultProxy, testServerUrl, waitFor, type FaultProxy } from '@acs/testing';
import { newUserId, Receiver, World } from './harness.js';

// The webhooks service with RabbitMQ unreachable at its start (app.ts: endpoints are managed and deliveries go on
// while the broker is away). Before, the start waited for the subscribe: no port, no API, no deliveries, until the
// broker came back (and a liveness probe restarted the pod meanwhile).
let world: World;
let receiver: Receiver;
let broker: FaultProxy;

beforeAll(async () => {
  world = await World.open();
  receiver = await Receiver.start();
  broker = await startFaultProxy(testServerUrl('AMQP_URL'), 5672);
}, 30_000);
afterAll(async () => {
  await world?.close();
  await receiver?.close();
  await broker?.close();
});

describe('the webhooks service while the broker is away', () => {
  it('starts and serves its API at once, then consumes events once the broker is back', async () => {
    broker.cut();
    const webhooks = await world.service({}, {}, await world.bus(broker.url));
    let consuming = false;
    void webhooks.service.eventsReady.then(() => (consuming = true));

    const ready = await fetch(`${webhooks.service.server.url}/readyz`);
    expect(ready.status).toBe(200);
    const userId = newUserId();
    const { id } = await webhooks.register(
      userId,
      receiver.on('/late', () => 200),
      ['api_key.created'],
    );
    expect(await webhooks.deliveries(userId, id)).toEqual([]);
    expect(consuming).toBe(false);

    broker.restore();
    await waitFor('the consumer subscribed', () => consuming, 10_000);
    await waitFor('the bus connected', () => webhooks.bus.ready(), 10_000);
    await webhooks.publishKeyEvent(userId);
    await waitFor('the delivery', () => receiver.at('/late').length > 0, 10_000);
    await waitFor('the delivery recorded as delivered', async () => (await webhooks.deliveries(userId, id))[0]?.status === 'delivered');
  }, 40_000);

  it('stops at once while the broker is away: the consumer still being made is not waited for', async () => {
    broker.cut();
    const webhooks = await world.service({}, {}, await world.bus(broker.url));
    const started = Date.now();
    await webhooks.service.close();
    expect(Date.now() - started).toBeLessThan(5000);
    broker.restore();
  }, 30_000);
});
