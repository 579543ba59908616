import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { errorText, type Headers } from './headers.js';
import type { ConsumeOutcome } from './types.js';

/**
 * Bus-level spans, made with the OpenTelemetry API only. With no SDK registered every call below is
 * the API's no-op (no headers written, non-recording spans), so tracing off costs a few small
 * objects per message. The tracer is looked up per message, never cached at import time, so the
 * spans go to whichever provider the process registers, whenever it registers it.
 *
 * These spans, not @opentelemetry/instrumentation-amqplib's: they work the same on the in-process
 * bus, need no ESM module hooks, and know what amqplib cannot (the original routing key across
 * retry queues, the attempt number, what became of the delivery).
 */
const TRACER_NAME = '@acs/bus';

/** Where a bus sends: `system` is messaging.system (`rabbitmq`, or the in-process bus's own name). */
export interface TraceDestination {
  system: string;
  exchange: string;
}

// Messaging semantic conventions (incubating, so spelled out rather than imported).
const ATTR = {
  system: 'messaging.system',
  destination: 'messaging.destination.name',
  subscription: 'messaging.destination.subscription.name',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  messageId: 'messaging.message.id',
  routingKey: 'messaging.rabbitmq.destination.routing_key',
  // No convention exists for these; named after the bus's own headers.
  attempt: 'acs.bus.attempt',
  outcome: 'acs.bus.outcome',
} as const;

/** The context a subscriber's deliveries start from: what was active when it subscribed, minus any span. */
export function subscriberContext(): Context {
  return trace.deleteSpan(context.active());
}

/**
 * Runs `send` inside a PRODUCER span `publish <routing key>`, a child of the caller's active span,
 * and hands it the headers (W3C traceparent/tracestate) that carry this span to the consumers.
 */
export function tracePublish<T>(
  destination: TraceDestination,
  routingKey: string,
  messageId: string,
  send: (traceHeaders: Headers) => Promise<T>,
): Promise<T> {
  const attributes: Attributes = {
    [ATTR.system]: destination.system,
    [ATTR.destination]: destination.exchange,
    [ATTR.operationType]: 'send',
    [ATTR.operationName]: 'publish',
    [ATTR.messageId]: messageId,
    [ATTR.routingKey]: routingKey,
  };
  return trace.getTracer(TRACER_NAME).startActiveSpan(`publish ${routingKey}`, { kind: SpanKind.PRODUCER, attributes }, async (span) => {
    const traceHeaders: Headers = {};
    propagation.inject(context.active(), traceHeaders);
    try {
      return await send(traceHeaders);
    } catch (err) {
      recordFailure(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

export interface TracedDelivery {
  queue: string;
  routingKey: string;
  attempt: number;
  messageId: string | undefined;
  /** The message's headers, where the publisher's trace context travels (kept across retries and dead-lettering). */
  headers: Headers | undefined;
  /** subscriberContext() of the subscription. */
  base: Context;
}

/** What became of a delivery; `error` is the handler's failure or why the message is poison. */
export interface DeliveryResult {
  outcome: ConsumeOutcome;
  error?: unknown;
}

/**
 * Runs one delivery inside a CONSUMER span `process <queue>` whose parent is the publisher's span
 * (from the headers), so the trace continues; the handler's own work (database calls, further
 * publishes) nests under it. Every attempt is its own span under the same producer span.
 */
export function traceDelivery(
  destination: TraceDestination,
  delivery: TracedDelivery,
  process: () => Promise<DeliveryResult>,
): Promise<DeliveryResult> {
  const parent = delivery.headers ? propagation.extract(delivery.base, delivery.headers) : delivery.base;
  const attributes: Attributes = {
    [ATTR.system]: destination.system,
    [ATTR.destination]: destination.exchange,
    [ATTR.subscription]: delivery.queue,
    [ATTR.operationType]: 'process',
    [ATTR.operationName]: 'process',
    [ATTR.routingKey]: delivery.routingKey,
    [ATTR.attempt]: delivery.attempt,
  };
  if (delivery.messageId !== undefined) attributes[ATTR.messageId] = delivery.messageId;
  return trace
    .getTracer(TRACER_NAME)
    .startActiveSpan(`process ${delivery.queue}`, { kind: SpanKind.CONSUMER, attributes }, parent, async (span) => {
      try {
        const result = await process();
        span.setAttribute(ATTR.outcome, result.outcome);
        if (result.error !== undefined) recordFailure(span, result.error);
        return result;
      } catch (err) {
        recordFailure(span, err);
        throw err;
      } finally {
        span.end();
      }
    });
}

function recordFailure(span: Span, err: unknown): void {
  if (err instanceof Error) span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorText(err) });
}
