import type { Bus, BusEnvelope } from '@acs/bus';
import type { Db, Queryable } from '@acs/db';
import type { Logger } from '@acs/logger';
import { context, type Context } from '@opentelemetry/api';
import { markFailed, markSent, tryRelayLock, unsentEvents, type OutboxRow } from './outbox-repository.js';
import type { OutboxTable } from './outbox-table.js';
import { contextOf } from './trace-context.js';

/** idle: published all it found; more: a full batch, go again; failed: back off; locked: another replica relays. */
export type PassOutcome = 'idle' | 'more' | 'failed' | 'locked';

export interface RelayPassOptions {
  db: Db;
  bus: Bus;
  logger: Logger;
  table: OutboxTable;
  /** The envelope exactly as consumers parse it (each service checks its own contract here). */
  toEnvelope(row: OutboxRow): BusEnvelope;
  batchSize: number;
}

export const errorText = (err: unknown): string => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

/** Publishes one row in its own stored trace (or none) and resolves on the broker's confirm. */
async function publishRow(options: RelayPassOptions, row: OutboxRow, traceBase: Context): Promise<void> {
  const envelope = options.toEnvelope(row);
  await context.with(contextOf(row.traceContext, traceBase), () => options.bus.publish(row.routingKey, envelope));
}

async function recordFailure(options: RelayPassOptions, tx: Queryable, row: OutboxRow, err: unknown): Promise<void> {
  await markFailed(tx, options.table, row.id, errorText(err));
  options.logger.warn(
    { eventId: row.eventId, outboxId: row.id, type: row.type, attempts: row.attempts + 1, err: errorText(err) },
    'outbox publish failed; will retry',
  );
}

/**
 * One pass over the table, in one transaction: the advisory lock, then the unsent rows in id order,
 * each marked sent after its confirm. The first failure ends the pass, so a later event of the same
 * user never overtakes an earlier one. A crash between a confirm and the commit publishes the row
 * again (at least once); consumers dedupe by event id.
 */
export function relayPass(options: RelayPassOptions, traceBase: Context): Promise<PassOutcome> {
  return options.db.transaction(async (tx) => {
    if (!(await tryRelayLock(tx, options.table))) return 'locked';
    const rows = await unsentEvents(tx, options.table, options.batchSize);
    for (const row of rows) {
      try {
        await publishRow(options, row, traceBase);
      } catch (err) {
        await recordFailure(options, tx, row, err);
        return 'failed';
      }
      await markSent(tx, options.table, row.id);
      options.logger.debug({ eventId: row.eventId, outboxId: row.id, type: row.type }, 'outbox event published');
    }
    return rows.length === options.batchSize ? 'more' : 'idle';
  });
}
