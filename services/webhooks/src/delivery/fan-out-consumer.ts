import { API_KEY_EVENTS_BINDING, QUOTA_THRESHOLD_ROUTING_KEY, SUBSCRIPTION_EVENTS_BINDING } from '@acs/contracts';
import type { Bus, BusEnvelope, Subscription } from '@acs/bus';
import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { fanOut } from '../data-access/deliveries-repository.js';
import { endpointsFor } from '../data-access/endpoints-repository.js';
import { webhookEventFrom } from './event-data.js';

/** One binding per event family this service turns into webhooks. */
const WEBHOOK_SOURCE_BINDINGS = [API_KEY_EVENTS_BINDING, QUOTA_THRESHOLD_ROUTING_KEY, SUBSCRIPTION_EVENTS_BINDING];

export type FanOutOutcome = 'fanned_out' | 'duplicate' | 'ignored';

/**
 * One bus event: a delivery for each of its user's endpoints subscribed to it, made in the
 * transaction that records the event as processed, so a redelivered event makes none. The sender
 * does the sending; the consumer never waits on an endpoint.
 */
async function fanOutEvent(db: Db, logger: Logger, message: BusEnvelope): Promise<FanOutOutcome> {
  const event = webhookEventFrom(message);
  if (event === null || event.userId === null) return 'ignored'; // a system key's event has no owner to tell
  const body = JSON.stringify(event.payload);
  const userId = event.userId;
  const made = await db.transaction(async (tx) => {
    const endpoints = await endpointsFor(tx, userId, event.payload.type);
    return fanOut(
      tx,
      { id: event.id, busType: event.busType, webhookType: event.payload.type },
      endpoints.map((e) => e.id),
      body,
    );
  });
  if (made === null) return 'duplicate';
  logger.debug({ eventId: event.id, type: event.busType, userId, deliveries: made }, 'event fanned out to webhook endpoints');
  return 'fanned_out';
}

export interface FanOutConsumerOptions {
  queue: string;
  prefetch: number;
  retryDelaysMs?: number[];
  onFannedOut(): void;
}

/** The service's durable queue, bound to the event families; the bus acks after the commit. */
export function startFanOutConsumer(db: Db, logger: Logger, bus: Bus, options: FanOutConsumerOptions): Promise<Subscription> {
  return bus.subscribe({
    queue: options.queue,
    bindings: WEBHOOK_SOURCE_BINDINGS,
    prefetch: options.prefetch,
    ...(options.retryDelaysMs ? { retryDelaysMs: options.retryDelaysMs } : {}),
    handler: async (message) => {
      if ((await fanOutEvent(db, logger, message)) === 'fanned_out') options.onFannedOut();
    },
  });
}
