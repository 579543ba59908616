import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { Gauge, type Registry } from '@acs/metrics';
import { pendingOutbox, type PendingOutbox } from '../data-access/outbox-repository.js';

const OUTBOX_PENDING_EVENTS = 'billing_outbox_pending_events';
const OUTBOX_OLDEST_PENDING_AGE_SECONDS = 'billing_outbox_oldest_pending_age_seconds';

/**
 * Events waiting in the outbox, and how long the oldest has waited: growing figures mean the relay
 * cannot publish (broker down, relay stuck), which roles in identity will then lag behind. Read
 * from the database at scrape time, so every replica reports the shared outbox and nothing runs
 * between scrapes. A failed read shows NaN, neither a stale figure nor a reassuring 0.
 */
export function registerOutboxGauges(registry: Registry, db: Db, logger: Logger): void {
  let reading: Promise<PendingOutbox | null> | null = null;
  // One scrape collects both gauges at once: they share one query.
  const read = (): Promise<PendingOutbox | null> =>
    (reading ??= pendingOutbox(db)
      .catch((err: unknown) => {
        logger.warn({ err }, 'could not read the outbox for metrics');
        return null;
      })
      .finally(() => {
        reading = null;
      }));
  new Gauge({
    name: OUTBOX_PENDING_EVENTS,
    help: 'Subscription events written but not yet published to the bus',
    registers: [registry],
    async collect() {
      this.set((await read())?.count ?? Number.NaN);
    },
  });
  new Gauge({
    name: OUTBOX_OLDEST_PENDING_AGE_SECONDS,
    help: 'Seconds since the oldest unpublished subscription event was written (0 when none waits)',
    registers: [registry],
    async collect() {
      this.set((await read())?.oldestAgeSeconds ?? Number.NaN);
    },
  });
}
