import type { Options } from 'amqplib';
import type { Headers } from '../headers.js';
import type { BusEnvelope } from '../types.js';

/**
 * The AMQP properties of a published event: persistent (it survives a broker restart in a durable
 * queue), JSON, the envelope's id and type where consumers and the management UI look for them,
 * a timestamp in whole seconds, and the trace headers that carry the publisher's span.
 */
export function publishProperties(envelope: BusEnvelope, traceHeaders: Headers, nowMs: number): Options.Publish {
  return {
    persistent: true,
    contentType: 'application/json',
    messageId: envelope.id,
    type: envelope.type,
    timestamp: Math.floor(nowMs / 1000),
    headers: traceHeaders,
  };
}
