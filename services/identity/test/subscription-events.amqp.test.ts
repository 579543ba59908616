import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createAmqpBus, deadLetterQueueName, subscriptionQueueNames, type AmqpBus } from '@acs/bus';
import {
  captureLogger,
  RawBroker,
  signedFetch,
  sleep,
  startFaultProxy,
  testServerUrl,
  uniqueName,
  waitFor,
  type FaultProxy,
} from '@acs/testing';
import { SUBSCRIPTION_ROUTING_KEYS } from '../src/consumers/contracts.js';
import { startIdentityService } from '../src/index.js';
import {
  INTERNAL_SECRET,
  REGISTER_PATH,
  buildRegisterBody,
  findRow,
  identityConfig,
  registered,
  silentLogger,
  startIdentity,
  type IdentityHarness,
} from './harness.js';
import { subscriptionEvent } from './subscription-events.js';

const RETRY_DELAYS = [50];

describe('identity consuming subscription events from RabbitMQ', () => {
  const exchange = uniqueName('identity_test_ex');
  const queue = uniqueName('identity_test_subscription_events');
  let raw: RawBroker;
  let proxy: FaultProxy;
  let bus: AmqpBus;
  let identity: IdentityHarness;

  beforeAll(async () => {
    raw = await RawBroker.open();
    proxy = await startFaultProxy(testServerUrl('AMQP_URL'), 5672);
    // Identity's bus goes through a proxy the test can cut, as a broker restart would.
    bus = createAmqpBus({
      url: proxy.url,
      exchange,
      logger: captureLogger('identity-bus').logger,
      reconnectDelayMs: 50,
      maxReconnectDelayMs: 200,
    });
    await waitFor('identity bus connected', () => bus.ready(), 5_000);
    identity = await startIdentity({
      bus,
      env: {
        TRIAL_DURATION_SECONDS: '0',
        SUBSCRIPTION_EVENTS_QUEUE: queue,
        SUBSCRIPTION_EVENTS_RETRY_DELAYS_MS: RETRY_DELAYS.join(','),
        SUBSCRIPTION_EVENTS_MAX_ATTEMPTS: '3',
      },
    });
  });
  afterAll(async () => {
    await identity?.stop();
    await bus?.close();
    await proxy?.close();
    await raw?.deleteAll(subscriptionQueueNames(queue, RETRY_DELAYS), [exchange]);
    await raw?.close();
  });

  const publish = (event: object, routingKey: string = SUBSCRIPTION_ROUTING_KEYS.activated) =>
    raw.publishRaw(exchange, routingKey, Buffer.from(JSON.stringify(event)));
  const processedCount = async (eventId: string): Promise<number> =>
    (await identity.db.query<{ n: number }>('SELECT count(*)::int AS n FROM processed_events WHERE event_id = $1', [eventId])).rows[0]!.n;

  it('applies the same event delivered twice once', async () => {
    const { user, body } = await registered(identity);
    const event = subscriptionEvent('activated', user.id, { planType: 1 });
    await publish(event);
    await publish(event);
    await waitFor('the event applied', async () => (await findRow(identity.db, body.email))!.plan_type === 1);
    await sleep(300); // time for the second delivery to be handled
    const row = await findRow(identity.db, body.email);
    expect(row!.version).toBe(2); // registration 1, one applied event
    expect(await processedCount(event.id)).toBe(1);
    expect((await raw.channel.checkQueue(queue)).messageCount).toBe(0);
  });

  it('parks a malformed message in the dead-letter queue and still applies a later valid one', async () => {
    await raw.publishRaw(exchange, SUBSCRIPTION_ROUTING_KEYS.activated, Buffer.from('{"not": "an envelope"'));
    const dead = await waitFor('the poison message parked', async () => {
      const letters = await raw.deadLetters(deadLetterQueueName(queue), queue);
      return letters.length > 0 ? letters : null;
    });
    expect(dead[0]).toMatchObject({ reason: 'poison', content: '{"not": "an envelope"', routingKey: 'subscription.activated' });
    const { user, body } = await registered(identity);
    await publish(subscriptionEvent('changed', user.id, { planType: 2 }), SUBSCRIPTION_ROUTING_KEYS.changed);
    await waitFor('the later event applied', async () => (await findRow(identity.db, body.email))!.plan_type === 2);
  });

  it('reconnects after the broker connection drops and applies events published after it', async () => {
    const { user, body } = await registered(identity);
    proxy.cut();
    await waitFor('identity bus to notice the lost connection', () => !bus.ready());
    // Published while identity is away: the durable queue keeps it.
    const whileAway = subscriptionEvent('activated', user.id, { planType: 1 });
    await publish(whileAway);
    await sleep(300);
    expect((await findRow(identity.db, body.email))!.plan_type).toBe(0);
    proxy.restore();
    await waitFor('identity bus to reconnect', () => bus.ready(), 10_000);
    await waitFor('the event from the outage applied', async () => (await findRow(identity.db, body.email))!.plan_type === 1);
    await publish(subscriptionEvent('changed', user.id, { planType: 3, currentPeriodEnd: null }), SUBSCRIPTION_ROUTING_KEYS.changed);
    await waitFor('the event after reconnecting applied', async () => (await findRow(identity.db, body.email))!.plan_type === 3);
    expect((await identity.cachedAuthz(user.id))!.record).toMatchObject({ planType: 3, subscriptionEndsAt: 253402300799 });
  });

  it('starts and serves logins while the broker is unreachable, and consumes once it is back', async () => {
    const otherProxy = await startFaultProxy(testServerUrl('AMQP_URL'), 5672);
    const otherQueue = uniqueName('identity_test_late_consumer');
    otherProxy.cut();
    const lateBus = createAmqpBus({
      url: otherProxy.url,
      exchange,
      logger: captureLogger('identity-late-bus').logger,
      reconnectDelayMs: 50,
      maxReconnectDelayMs: 200,
    });
    // startIdentity would wait for eventsReady, so start the service the way main.ts does.
    const config = await identityConfig(identity.database, identity.prefix, {
      SUBSCRIPTION_EVENTS_QUEUE: otherQueue,
      SUBSCRIPTION_EVENTS_RETRY_DELAYS_MS: '50',
    });
    const late = await startIdentityService(config, silentLogger(), identity.cache, lateBus);
    try {
      let consuming = false;
      void late.eventsReady.then(() => (consuming = true));
      const response = await signedFetch(late.server.url, INTERNAL_SECRET, 'POST', REGISTER_PATH, {
        body: buildRegisterBody(),
        context: { keyId: 'test-key', scopes: [] },
      });
      expect(response.status).toBe(201);
      await sleep(200);
      expect(consuming).toBe(false);
      otherProxy.restore();
      await late.eventsReady;
      expect(consuming).toBe(true);
      expect((await raw.channel.checkQueue(otherQueue)).consumerCount).toBe(1);
    } finally {
      await late.close();
      await lateBus.close();
      await otherProxy.close();
      await raw.deleteAll(subscriptionQueueNames(otherQueue, [50]), []);
    }
  });
});
