import type { Bus, BusEnvelope, BusMetrics, SubscribeOptions, Subscription } from './types.js';

/**
 * The same bus, counted into `metrics`: publishes here, deliveries inside the consumers (only they
 * know whether a message was retried or parked). Each service wraps the bus it is given, so the
 * embedded mode's shared bus reports publishes on billing's /metrics and deliveries on identity's.
 */
export function instrumentBus(bus: Bus, metrics: BusMetrics): Bus {
  return {
    async publish(routingKey: string, message: BusEnvelope): Promise<void> {
      try {
        await bus.publish(routingKey, message);
      } catch (err) {
        metrics.published('failed');
        throw err;
      }
      metrics.published('ok');
    },
    subscribe: (options: SubscribeOptions): Promise<Subscription> => bus.subscribe({ ...options, metrics }),
    ready: () => bus.ready(),
    close: () => bus.close(),
  };
}
