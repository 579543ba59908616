import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { KIND, type ReceivedSpan } from './otlp-receiver.js';
import { findChain, inTrace } from './span-tree.js';
import { startTracedSystem, type TracedSystem } from './traced-processes.js';

// Gateway, identity, keys and billing as separate processes, billing and identity on RabbitMQ: one
// subscription must be one trace, from the client's call through billing's outbox and the broker
// to identity's role change.
let sys: TracedSystem;

beforeAll(async () => {
  sys = await startTracedSystem({ env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, withBilling: true });
}, 60_000);
afterAll(() => sys?.stop());

const ancestorsOf = (spans: readonly ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] => {
  const byId = new Map(inTrace(spans, span.traceId).map((s) => [s.spanId, s]));
  const chain: ReceivedSpan[] = [];
  for (let parent = byId.get(span.parentSpanId); parent; parent = byId.get(parent.parentSpanId)) chain.push(parent);
  return chain;
};

describe('a subscription and its event, traced', () => {
  it('gateway → billing → outbox relay publish → identity consumer → the role change, in one trace', async () => {
    const user = await sys.signUp();
    const requestId = `trace-${randomBytes(6).toString('hex')}`;
    const subscribed = await sys.call('POST', '/api/Subscriptions', {
      body: { planId: 'monthly' },
      headers: { authorization: `Bearer ${user.token}`, 'x-request-id': requestId },
    });
    expect(subscribed.status).toBe(201);

    const root = (spans: readonly ReceivedSpan[]) =>
      spans.find((s) => s.service === 'gateway' && s.kind === KIND.server && s.attributes['acs.request.id'] === requestId);
    // The request's hop into billing, then the event's path: billing's PRODUCER span (published by the
    // relay, later and outside the request) → identity's CONSUMER span → its handling → an UPDATE.
    const requestChain = (spans: readonly ReceivedSpan[]) => {
      const top = root(spans);
      return top
        ? findChain(
            spans,
            [
              { service: 'gateway', kind: KIND.client },
              { service: 'billing', kind: KIND.server, name: 'POST /api/Subscriptions' },
            ],
            top,
          )
        : null;
    };
    const eventChain = (spans: readonly ReceivedSpan[]) => {
      const top = root(spans);
      if (!top) return null;
      // The subscription event's publish (the same request also publishes its audit entry, issue 30).
      const producer = inTrace(spans, top.traceId).find(
        (s) => s.service === 'billing' && s.kind === KIND.producer && s.name === 'publish subscription.activated',
      );
      if (!producer) return null;
      const rest = findChain(
        spans,
        [
          { service: 'identity', kind: KIND.consumer, name: /^process / },
          { service: 'identity', kind: KIND.internal, name: 'apply subscription event' },
        ],
        producer,
      );
      if (!rest) return null;
      const update = inTrace(spans, top.traceId).find(
        (s) => s.service === 'identity' && s.kind === KIND.client && /^UPDATE /.test(s.name) && ancestorsOf(spans, s).includes(rest[1]!),
      );
      return update ? { producer, consumer: rest[0]!, apply: rest[1]!, update } : null;
    };
    const spans = await sys.receiver.waitForSpans((all) => requestChain(all) !== null && eventChain(all) !== null, 30_000);
    const [, billingServer] = requestChain(spans)!;
    const { producer, consumer, apply, update } = eventChain(spans)!;

    expect(billingServer!.attributes).toMatchObject({ 'http.response.status_code': 201, 'acs.request.id': requestId });
    // The publish happened in the relay, after the request: its parent chain still reaches the request.
    expect(ancestorsOf(spans, producer)).toContain(billingServer);
    expect(producer.name).toBe('publish subscription.activated');
    expect(producer.attributes).toMatchObject({ 'messaging.system': 'rabbitmq' });
    expect(consumer.attributes).toMatchObject({ 'acs.bus.attempt': 1, 'acs.bus.outcome': 'ack' });
    expect(apply.attributes).toMatchObject({ 'acs.event.outcome': 'applied' });
    expect(update.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'db.operation.name': 'UPDATE' });
    // Three processes' spans, one trace id.
    expect(new Set(inTrace(spans, billingServer!.traceId).map((s) => s.service))).toEqual(new Set(['gateway', 'billing', 'identity']));
    expect(JSON.stringify(inTrace(spans, billingServer!.traceId))).not.toContain(user.token);
  }, 60_000);
});
