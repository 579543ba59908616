import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { BusEnvelope, DeliveryInfo } from '@acs/bus';
import type { BusHarness } from './bus-contract.js';
import { idsOf, inTestSpan, parentIdOf, sleep, startTestTracing, waitFor, type TestTracing } from '@acs/testing';
import { buildEnvelope, captureLogs, type CapturedLogs } from './support.js';

const FAST_RETRY = { retryDelaysMs: [30] };
const ROUTING_KEY = 'subscription.activated.v1';

/**
 * Trace context across the bus, the same on both buses: the publisher's span continues in the
 * consumer's span, across retries and into the dead-letter queue, and nothing changes with
 * tracing off.
 */
export function describeBusTracingContract(name: string, setUp: (logs: CapturedLogs) => Promise<BusHarness>): void {
  describe(`${name}: trace context across the bus`, () => {
    let harness: BusHarness;
    let tracing: TestTracing | undefined;

    beforeEach(async () => {
      harness = await setUp(captureLogs(`bus-tracing-${name}`));
    });
    afterEach(async () => {
      await (harness as BusHarness | undefined)?.teardown();
      await tracing?.stop();
      tracing = undefined;
    });

    it('runs the handler in a CONSUMER span that is a child of the PRODUCER span of the publish, inside the caller’s trace', async () => {
      tracing = startTestTracing();
      const queue = harness.queueName('traced');
      const seen: { message: BusEnvelope; info: DeliveryInfo; activeSpanId: string | undefined }[] = [];
      await harness.subscribe({
        queue,
        bindings: ['subscription.#'],
        handler: async (message, info) => void seen.push({ message, info, activeSpanId: trace.getActiveSpan()?.spanContext().spanId }),
      });
      const event = buildEnvelope();
      const { span: request } = await inTestSpan('request', () => harness.bus.publish(ROUTING_KEY, event));

      const [producer] = await tracing.waitForSpans(`publish ${ROUTING_KEY}`);
      const [consumer] = await tracing.waitForSpans(`process ${queue}`);
      expect(producer!.kind).toBe(SpanKind.PRODUCER);
      expect(idsOf(producer!).traceId).toBe(request.traceId);
      expect(parentIdOf(producer!)).toBe(request.spanId);
      expect(producer!.attributes).toMatchObject({
        'messaging.operation.type': 'send',
        'messaging.operation.name': 'publish',
        'messaging.message.id': event.id,
        'messaging.rabbitmq.destination.routing_key': ROUTING_KEY,
      });
      expect(producer!.attributes['messaging.system']).toEqual(expect.any(String));
      expect(producer!.attributes['messaging.destination.name']).toEqual(expect.any(String));

      expect(consumer!.kind).toBe(SpanKind.CONSUMER);
      expect(idsOf(consumer!).traceId).toBe(request.traceId);
      expect(parentIdOf(consumer!)).toBe(idsOf(producer!).spanId);
      expect(consumer!.attributes).toMatchObject({
        'messaging.operation.type': 'process',
        'messaging.destination.subscription.name': queue,
        'messaging.message.id': event.id,
        'messaging.rabbitmq.destination.routing_key': ROUTING_KEY,
        'acs.bus.attempt': 1,
        'acs.bus.outcome': 'ack',
      });
      expect(consumer!.status.code).not.toBe(SpanStatusCode.ERROR);
      // The handler ran inside the consumer span, so whatever it does nests under it.
      expect(seen).toHaveLength(1);
      expect(seen[0]!.message).toEqual(event);
      expect(seen[0]!.activeSpanId).toBe(idsOf(consumer!).spanId);
    });

    it('starts a new trace at a publish outside any span, and the consumer still continues it', async () => {
      tracing = startTestTracing();
      const queue = harness.queueName('untraced_caller');
      await harness.subscribe({ queue, bindings: ['subscription.#'], handler: async () => undefined });
      await harness.bus.publish(ROUTING_KEY, buildEnvelope());
      const [producer] = await tracing.waitForSpans(`publish ${ROUTING_KEY}`);
      const [consumer] = await tracing.waitForSpans(`process ${queue}`);
      expect(parentIdOf(producer!)).toBeUndefined();
      expect(idsOf(consumer!).traceId).toBe(idsOf(producer!).traceId);
      expect(parentIdOf(consumer!)).toBe(idsOf(producer!).spanId);
    });

    it('keeps the trace across a retry: each attempt is a consumer span under the same producer span, the failure recorded', async () => {
      tracing = startTestTracing();
      const queue = harness.queueName('traced_retry');
      let handled = 0;
      await harness.subscribe({
        queue,
        bindings: ['subscription.#'],
        ...FAST_RETRY,
        handler: async (_message, info) => {
          if (info.attempt === 1) throw new Error('database briefly unavailable');
          handled += 1;
        },
      });
      const { span: request } = await inTestSpan('request', () => harness.bus.publish(ROUTING_KEY, buildEnvelope()));
      await waitFor('the second attempt to succeed', () => handled === 1);
      // In the order they started: the first attempt's span ends only after the broker confirms the move to
      // the retry queue, which on a loaded broker can come after the whole 30 ms retry has run.
      const attempts = (await tracing.waitForSpans(`process ${queue}`, 2)).sort(
        (a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1],
      );
      const [producer] = await tracing.waitForSpans(`publish ${ROUTING_KEY}`);

      expect(attempts.map((span) => span.attributes['acs.bus.attempt'])).toEqual([1, 2]);
      expect(attempts.map((span) => span.attributes['acs.bus.outcome'])).toEqual(['retry', 'ack']);
      for (const span of attempts) {
        expect(idsOf(span).traceId).toBe(request.traceId);
        expect(parentIdOf(span)).toBe(idsOf(producer!).spanId);
      }
      const [failed, succeeded] = attempts;
      expect(failed!.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'Error: database briefly unavailable' });
      expect(failed!.events.map((event) => [event.name, event.attributes?.['exception.message']])).toEqual([
        ['exception', 'database briefly unavailable'],
      ]);
      expect(succeeded!.status.code).not.toBe(SpanStatusCode.ERROR);
    });

    it('parks a message that keeps failing with its traceparent, so the dead letter leads to its trace', async () => {
      tracing = startTestTracing();
      const queue = harness.queueName('traced_doomed');
      await harness.subscribe({
        queue,
        bindings: ['subscription.#'],
        maxAttempts: 2,
        ...FAST_RETRY,
        handler: async () => {
          throw new Error('always');
        },
      });
      const { span: request } = await inTestSpan('request', () => harness.bus.publish(ROUTING_KEY, buildEnvelope()));
      const [parked] = await waitFor('a dead letter', async () => {
        const letters = await harness.deadLetters(queue);
        return letters.length > 0 ? letters : null;
      });
      const [producer] = await tracing.waitForSpans(`publish ${ROUTING_KEY}`);
      expect(parked!.traceparent).toBe(`00-${request.traceId}-${idsOf(producer!).spanId}-01`);
      const attempts = await tracing.waitForSpans(`process ${queue}`, 2);
      expect(attempts.map((span) => span.attributes['acs.bus.outcome'])).toEqual(['retry', 'dead_lettered']);
    });

    it('records a poison message as a failed consumer span', async () => {
      tracing = startTestTracing();
      const queue = harness.queueName('traced_poison');
      await harness.subscribe({ queue, bindings: ['subscription.#'], handler: async () => undefined });
      await harness.publishRaw(ROUTING_KEY, Buffer.from('{not json'));
      const [consumer] = await tracing.waitForSpans(`process ${queue}`);
      expect(consumer!.attributes['acs.bus.outcome']).toBe('dead_lettered');
      expect(consumer!.status.code).toBe(SpanStatusCode.ERROR);
      expect(consumer!.status.message).toMatch(/^invalid JSON/);
      expect(parentIdOf(consumer!)).toBeUndefined(); // no trace context came with it
    });

    it('works unchanged with no tracer provider registered: no trace headers, no active span in the handler', async () => {
      const queue = harness.queueName('untraced');
      const activeInHandler: unknown[] = [];
      await harness.subscribe({
        queue,
        bindings: ['subscription.#'],
        maxAttempts: 2,
        ...FAST_RETRY,
        handler: async (_message, info) => {
          activeInHandler.push(trace.getActiveSpan());
          if (info.attempt <= 2) throw new Error('to see the headers in the dead letter');
        },
      });
      await harness.bus.publish(ROUTING_KEY, buildEnvelope());
      const [parked] = await waitFor('a dead letter', async () => {
        const letters = await harness.deadLetters(queue);
        return letters.length > 0 ? letters : null;
      });
      await sleep(50);
      expect(activeInHandler).toEqual([undefined, undefined]);
      expect(parked!.traceparent).toBeUndefined();
      expect(parked!.attempts).toBe(2);
    });
  });
}
