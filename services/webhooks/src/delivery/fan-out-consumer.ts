import { WEBHOOK_SOURCE_BINDINGS } from '@acs/contracts';
import type { Bus, BusEnvelope, Subscription } from '@acs/bus';
import { groupWriter, type Db, type GroupWriter } from '@acs/db';
import type { Logger } from '@acs/logger';
import { fanOutEvents, type FanOutEvent } from '../data-access/fan-out.js';
import { webhookEventFrom } from './event-data.js';

export type FanOutOutcome = 'fanned_out' | 'duplicate' | 'ignored';

/** Fans out the events arriving together in one statement; an id twice in one group is made once (the later copy is a duplicate). */
function fanOutWriter(db: Db): GroupWriter<FanOutEvent, number | null> {
  return groupWriter(async (events: FanOutEvent[]) => {
    const firstOf = new Map<string, number>();
    events.forEach((event, i) => {
      if (!firstOf.has(event.id)) firstOf.set(event.id, i);
    });
    const distinct = [...firstOf.values()].map((i) => events[i]!);
    const made = await fanOutEvents(db, distinct);
    const madeById = new Map(distinct.map((event, i) => [event.id, made[i]!]));
    return events.map((event, i) => (firstOf.get(event.id) === i ? madeById.get(event.id)! : null));
  });
}

/**
 * One bus event: a delivery for each of its user's endpoints subscribed to it, made in the
 * statement that records the event as processed (with the other events arriving meanwhile), so a
 * redelivered event makes none. The sender does the sending; the consumer never waits on an endpoint.
 */
async function fanOutEvent(write: GroupWriter<FanOutEvent, number | null>, logger: Logger, message: BusEnvelope): Promise<FanOutOutcome> {
  const event = webhookEventFrom(message);
  if (event === null || event.userId === null) return 'ignored'; // a system key's event has no owner to tell
  const made = await write({
    id: event.id,
    busType: event.busType,
    webhookType: event.payload.type,
    userId: event.userId,
    body: JSON.stringify(event.payload),
  });
  if (made === null) return 'duplicate';
  logger.debug({ eventId: event.id, type: event.busType, userId: event.userId, deliveries: made }, 'event fanned out to webhook endpoints');
  return 'fanned_out';
}

export interface FanOutConsumerOptions {
  queue: string;
  prefetch: number;
  retryDelaysMs?: number[];
  onFannedOut(): void;
}

/**
 * The service's durable queue, bound to the event families; the bus acks a message after the
 * commit of its group. The prefetch is what lets groups form: up to that many events wait together.
 */
export function startFanOutConsumer(db: Db, logger: Logger, bus: Bus, options: FanOutConsumerOptions): Promise<Subscription> {
  const write = fanOutWriter(db);
  return bus.subscribe({
    queue: options.queue,
    bindings: WEBHOOK_SOURCE_BINDINGS,
    prefetch: options.prefetch,
    ...(options.retryDelaysMs ? { retryDelaysMs: options.retryDelaysMs } : {}),
    handler: async (message) => {
      if ((await fanOutEvent(write, logger, message)) === 'fanned_out') options.onFannedOut();
    },
  });
}
