import { Counter, type Registry } from '@acs/metrics';
import type { BusMetrics, ConsumeOutcome } from './types.js';

export const BUS_CONSUMED_TOTAL = 'bus_messages_consumed_total';
export const BUS_PUBLISHED_TOTAL = 'bus_messages_published_total';

/**
 * `bus_messages_consumed_total{queue, outcome}` and `bus_messages_published_total{outcome}`.
 * Queue names come from configuration, never from messages, so the labels stay bounded.
 */
export function createBusMetrics(registry: Registry): BusMetrics {
  const consumed = new Counter({
    name: BUS_CONSUMED_TOTAL,
    help: 'Bus deliveries by queue and what became of them (ack, retry, dead_lettered, requeued)',
    labelNames: ['queue', 'outcome'],
    registers: [registry],
  });
  const published = new Counter({
    name: BUS_PUBLISHED_TOTAL,
    help: 'Bus publishes by outcome (ok: confirmed by the broker)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  // Shown as 0 from the start, so a rate() alert on failures has a series to read.
  published.inc({ outcome: 'ok' }, 0);
  published.inc({ outcome: 'failed' }, 0);
  return {
    consumed: (queue: string, outcome: ConsumeOutcome) => consumed.inc({ queue, outcome }),
    published: (outcome: 'ok' | 'failed') => published.inc({ outcome }),
  };
}
