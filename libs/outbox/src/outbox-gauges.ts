import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { Gauge, type Registry } from '@acs/metrics';
import { pendingOutbox, type PendingOutbox } from './outbox-repository.js';
import type { OutboxTable } from './outbox-table.js';

export interface OutboxGaugeNames {
  /** e.g. billing_outbox_pending_events */
  pending: string;
  /** e.g. billing_outbox_oldest_pending_age_seconds */
  oldestAge: string;
  /** What the events are about, for the help texts ("subscription"). */
  subject: string;
}

/** The gauges' names by the convention every service follows: `<service>_outbox_pending_events`, `<service>_outbox_oldest_pending_age_seconds`. */
export function outboxGaugeNames(service: string, subject: string): OutboxGaugeNames {
  return { pending: `${service}_outbox_pending_events`, oldestAge: `${service}_outbox_oldest_pending_age_seconds`, subject };
}

/**
 * Events waiting in the outbox, and how long the oldest has waited: growing figures mean the relay
 * cannot publish (broker down, relay stuck). Read from the database at scrape time, so every
 * replica reports the shared outbox and nothing runs between scrapes. A failed read shows NaN,
 * neither a stale figure nor a reassuring 0.
 */
export function registerOutboxGauges(registry: Registry, db: Db, logger: Logger, table: OutboxTable, names: OutboxGaugeNames): void {
  let reading: Promise<PendingOutbox | null> | null = null;
  // One scrape collects both gauges at once: they share one query.
  const read = (): Promise<PendingOutbox | null> =>
    (reading ??= pendingOutbox(db, table)
      .catch((err: unknown) => {
        logger.warn({ err }, 'could not read the outbox for metrics');
        return null;
      })
      .finally(() => {
        reading = null;
      }));
  new Gauge({
    name: names.pending,
    help: `${names.subject[0]!.toUpperCase()}${names.subject.slice(1)} events written but not yet published to the bus`,
    registers: [registry],
    async collect() {
      this.set((await read())?.count ?? Number.NaN);
    },
  });
  new Gauge({
    name: names.oldestAge,
    help: `Seconds since the oldest unpublished ${names.subject} event was written (0 when none waits)`,
    registers: [registry],
    async collect() {
      this.set((await read())?.oldestAgeSeconds ?? Number.NaN);
    },
  });
}
