import type { Bus, BusEnvelope } from '@acs/bus';
import { context, trace } from '@opentelemetry/api';
import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { envelopeSchemaOf } from './envelope-schema.js';
import { markFailed, markSent, tryRelayLock, unsentEvents, type OutboxRow } from '../data-access/outbox-repository.js';
import { contextOf } from './trace-context.js';

export interface OutboxRelayOptions {
  db: Db;
  bus: Bus;
  logger: Logger;
  /** Poll even when nothing wakes the relay (rows written by another replica, a missed wake). */
  pollIntervalMs: number;
  /** Backoff after a failed publish: retryMinMs, doubling up to retryMaxMs, with jitter. */
  retryMinMs: number;
  retryMaxMs: number;
  batchSize?: number;
}

export interface OutboxRelay {
  /** Publish soon: a transaction just committed outbox rows. */
  wake(): void;
  /** Consecutive failed passes (0 when the last pass published everything it found). */
  readonly failures: number;
  /** Stops polling and waits for a pass in flight. */
  close(): Promise<void>;
}

type PassOutcome = 'idle' | 'more' | 'failed' | 'locked';

const errorText = (err: unknown): string => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

/** The envelope exactly as consumers parse it; the row id is the per-user ordering sequence. */
function toEnvelope(row: OutboxRow): BusEnvelope {
  return envelopeSchemaOf(row.type).parse({
    id: row.eventId,
    type: row.type,
    occurredAt: row.occurredAt.toISOString(),
    payload: { ...row.payload, sequence: row.id },
  });
}

/**
 * Publishes the outbox in id order with publisher confirms (bus.publish resolves on the broker's
 * confirm) and marks each row sent after its confirm. On the first failure the pass stops, so a
 * later event of the same user never overtakes an earlier one, and the relay backs off. One relay
 * at a time across replicas (a transaction-scoped advisory lock). Delivery is at least once:
 * a crash between the confirm and the commit republishes, and consumers dedupe by event id.
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { db, bus, logger } = options;
  const batchSize = options.batchSize ?? 100;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let failures = 0;
  let closed = false;
  // Each pass runs in the context the relay started in (without its span), never in that of the
  // request whose wake() scheduled it: a row is published in its own stored trace, or in none.
  const traceBase = trace.deleteSpan(context.active());

  async function pass(): Promise<PassOutcome> {
    return db.transaction(async (tx) => {
      if (!(await tryRelayLock(tx))) return 'locked';
      const rows = await unsentEvents(tx, batchSize);
      for (const row of rows) {
        try {
          const envelope = toEnvelope(row);
          await context.with(contextOf(row.traceContext, traceBase), () => bus.publish(row.routingKey, envelope));
        } catch (err) {
          await markFailed(tx, row.id, errorText(err));
          logger.warn(
            { eventId: row.eventId, outboxId: row.id, type: row.type, attempts: row.attempts + 1, err: errorText(err) },
            'outbox publish failed; will retry',
          );
          return 'failed';
        }
        await markSent(tx, row.id);
        logger.debug({ eventId: row.eventId, outboxId: row.id, type: row.type }, 'outbox event published');
      }
      return rows.length === batchSize ? 'more' : 'idle';
    });
  }

  function schedule(delayMs: number): void {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      void tick();
    }, delayMs);
    timer.unref?.();
  }

  function backoffDelay(): number {
    const base = Math.min(options.retryMaxMs, options.retryMinMs * 2 ** Math.min(failures - 1, 20));
    return Math.round(base / 2 + Math.random() * (base / 2));
  }

  async function tick(): Promise<void> {
    if (closed) return;
    if (running !== null) {
      again = true;
      return;
    }
    let outcome: PassOutcome;
    running = context
      .with(traceBase, pass)
      .then((result) => {
        outcome = result;
      })
      .catch((err: unknown) => {
        outcome = 'failed';
        logger.error({ err: errorText(err) }, 'outbox relay pass failed');
      });
    await running;
    running = null;
    if (outcome! === 'failed') {
      failures += 1;
      again = false;
      schedule(backoffDelay());
      return;
    }
    if (failures > 0) logger.info({ failedPasses: failures }, 'outbox relay publishing again');
    failures = 0;
    const more = outcome! === 'more' || again;
    again = false;
    schedule(more ? 0 : options.pollIntervalMs);
  }

  schedule(0);

  return {
    wake(): void {
      if (closed) return;
      if (running !== null) {
        again = true;
        return;
      }
      // During a backoff a new write waits for the retry: the broker is what is missing.
      if (failures === 0) schedule(0);
    },
    get failures() {
      return failures;
    },
    async close(): Promise<void> {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}
