import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SpanKind } from '@opentelemetry/api';
import { createMemoryBus, subscriptionQueueNames, type Bus } from '@acs/bus';
import { SUBSCRIPTION_ROUTING_KEYS } from '@acs/contracts';
import { idsOf, inTestSpan, parentIdOf, startTestTracing, uniqueName, waitFor, type ReadableSpan, type TestTracing } from '@acs/testing';
import { APPLY_SPAN_NAME } from '@acs/identity-service';
import { findRow, registered, startIdentity, type IdentityHarness } from '@acs/test-support';
import { subscribe } from '../src/domain/subscribe.js';
import { AmqpWorld, newUserId, startBilling, type BillingHarness } from './harness.js';

const PUBLISH_ACTIVATED = `publish ${SUBSCRIPTION_ROUTING_KEYS.activated}`;

/**
 * The subscribe use case as the HTTP route calls it, inside a span standing for the request's own
 * server span (the HTTP spans come from the tracing setup, not from billing).
 */
const subscribeInRequest = (billing: BillingHarness, userId: number) =>
  inTestSpan('POST /api/Subscriptions', () => subscribe(billing.service.deps, userId, { planId: 'monthly' }, null));

async function storedTraceContext(billing: BillingHarness, userId: number): Promise<{ eventId: string; traceContext: unknown }> {
  const { rows } = await billing.db.query<{ event_id: string; trace_context: unknown }>(
    'SELECT event_id, trace_context FROM outbox WHERE user_id = $1',
    [userId],
  );
  expect(rows).toHaveLength(1);
  const traceContext = typeof rows[0]!.trace_context === 'string' ? JSON.parse(rows[0]!.trace_context) : rows[0]!.trace_context;
  return { eventId: rows[0]!.event_id, traceContext };
}

async function producerSpanOf(tracing: TestTracing, eventId: string): Promise<ReadableSpan> {
  return waitFor(`the producer span of event ${eventId}`, () =>
    tracing.spans().find((span) => span.name === PUBLISH_ACTIVATED && span.attributes['messaging.message.id'] === eventId),
  );
}

let tracing: TestTracing;
beforeAll(() => {
  tracing = startTestTracing();
});
afterAll(async () => {
  await tracing?.stop();
});

describe("billing's outbox keeps the request's trace", () => {
  const bus = createMemoryBus();
  let billing: BillingHarness;

  beforeAll(async () => {
    // No polling in the test's time: only a wake() (from a request) makes the relay publish.
    billing = await startBilling({ bus, env: { OUTBOX_POLL_INTERVAL_MS: '60000' } });
  });
  afterAll(async () => {
    await billing?.stop();
    await bus.close();
  });

  it('stores the trace context with the event, and the relay publishes it as a child of the request span', async () => {
    const userId = newUserId();
    const { span: request } = await subscribeInRequest(billing, userId);
    const stored = await storedTraceContext(billing, userId);
    expect(stored.traceContext).toEqual({ traceparent: `00-${request.traceId}-${request.spanId}-01` });

    const producer = await producerSpanOf(tracing, stored.eventId);
    expect(producer.kind).toBe(SpanKind.PRODUCER);
    expect(idsOf(producer).traceId).toBe(request.traceId);
    expect(parentIdOf(producer)).toBe(request.spanId);
  });

  it('publishes an event stored without a trace context (tracing off, or a row from before the migration) as a trace of its own, whoever wakes the relay', async () => {
    const untracedUser = newUserId();
    // Written outside any span, and without waking the relay: it waits for the next pass.
    const quiet = { ...billing.service.deps, onOutboxWrite: () => undefined };
    await subscribe(quiet, untracedUser, { planId: 'monthly' }, null);
    const untraced = await storedTraceContext(billing, untracedUser);
    expect(untraced.traceContext).toBeNull();

    // This request wakes the relay from inside its span; the pass publishes both rows.
    const tracedUser = newUserId();
    const { span: request } = await subscribeInRequest(billing, tracedUser);
    const traced = await storedTraceContext(billing, tracedUser);

    const rootProducer = await producerSpanOf(tracing, untraced.eventId);
    const childProducer = await producerSpanOf(tracing, traced.eventId);
    expect(parentIdOf(rootProducer)).toBeUndefined();
    expect(idsOf(rootProducer).traceId).not.toBe(request.traceId);
    expect(parentIdOf(childProducer)).toBe(request.spanId);
  });
});

/** One subscription is one trace: request → relay's publish → identity's consumer → the role change. */
async function followOneTrace(billing: BillingHarness, identity: IdentityHarness, queue: string): Promise<void> {
  const { user, body } = await registered(identity);
  const { span: request } = await subscribeInRequest(billing, user.id);
  await waitFor('the role change in identity', async () => (await findRow(identity.db, body.email))?.plan_type === 1);
  const { eventId } = await storedTraceContext(billing, user.id);

  const producer = await producerSpanOf(tracing, eventId);
  const consumer = await waitFor('the consumer span of the event', () =>
    tracing.spans().find((span) => span.name === `process ${queue}` && span.attributes['messaging.message.id'] === eventId),
  );
  const apply = await waitFor('the span applying the event', () =>
    tracing.spans().find((span) => span.name === APPLY_SPAN_NAME && parentIdOf(span) === idsOf(consumer).spanId),
  );
  for (const span of [producer, consumer, apply]) expect(idsOf(span).traceId).toBe(request.traceId);
  expect(parentIdOf(producer)).toBe(request.spanId);
  expect(consumer.kind).toBe(SpanKind.CONSUMER);
  expect(parentIdOf(consumer)).toBe(idsOf(producer).spanId);
  expect(consumer.attributes).toMatchObject({ 'acs.bus.attempt': 1, 'acs.bus.outcome': 'ack' });
  expect(apply.attributes).toMatchObject({ 'acs.event.type': 'subscription.activated.v1', 'acs.event.outcome': 'applied' });
}

describe('one subscription, one trace: billing to identity over RabbitMQ', () => {
  let world: AmqpWorld;
  let billing: BillingHarness;
  let identity: IdentityHarness;
  const queue = uniqueName('identity_tracing_events');

  beforeAll(async () => {
    world = await AmqpWorld.open();
    for (const name of subscriptionQueueNames(queue, [50])) world.queues.add(name);
    const identityBus: Bus = await world.bus();
    identity = await startIdentity({
      bus: identityBus,
      env: { TRIAL_DURATION_SECONDS: '0', SUBSCRIPTION_EVENTS_QUEUE: queue, SUBSCRIPTION_EVENTS_RETRY_DELAYS_MS: '50' },
    });
    billing = await startBilling({ bus: await world.bus() });
  });
  afterAll(async () => {
    await billing?.stop();
    await identity?.stop();
    await world?.close();
  });

  it('links the request, the relay’s publish, the consumer and the role change', () => followOneTrace(billing, identity, queue));
});

describe('one subscription, one trace: billing to identity on the in-process bus', () => {
  const bus = createMemoryBus();
  let billing: BillingHarness;
  let identity: IdentityHarness;
  const queue = uniqueName('identity_tracing_events');

  beforeAll(async () => {
    identity = await startIdentity({ bus, env: { TRIAL_DURATION_SECONDS: '0', SUBSCRIPTION_EVENTS_QUEUE: queue } });
    billing = await startBilling({ bus });
  });
  afterAll(async () => {
    await billing?.stop();
    await identity?.stop();
    await bus.close();
  });

  it('links the request, the relay’s publish, the consumer and the role change', () => followOneTrace(billing, identity, queue));
});
