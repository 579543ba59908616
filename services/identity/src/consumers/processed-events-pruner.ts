import { startPeriodicPurge, type PeriodicPurge, type Queryable } from '@acs/db';
import type { Logger } from '@acs/logger';

/*
 * processed_events would otherwise grow by one row per subscription event forever. A row is kept
 * for `retentionDays` (redeliveries and dead-letter replays come within that), and after that only
 * while it is the latest applied event of its user (highest sequence): that row is what newerEventApplied() compares
 * a late event with, so a replay older than anything kept is still recognised as stale and never
 * re-applied. Deleting in small batches keeps each statement short next to the consumer's locks.
 */
const BATCH = 5_000;

export async function pruneProcessedEvents(db: Queryable, retentionDays: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const { rowCount } = await db.query(
      `DELETE FROM processed_events
        WHERE event_id IN (
          SELECT p.event_id FROM processed_events p
           WHERE p.processed_at < now() - make_interval(days => $1)
             AND EXISTS (SELECT 1 FROM processed_events n
                          WHERE n.user_id = p.user_id AND n.applied
                            AND n.sequence > p.sequence)
           LIMIT $2)`,
      [retentionDays, BATCH],
    );
    deleted += rowCount;
    if (rowCount < BATCH) return deleted;
  }
}

/** Prunes now and then every `everyMs` (unref'd: it never keeps the process alive). Replicas may overlap harmlessly. */
export function startProcessedEventsPruner(db: Queryable, retentionDays: number, everyMs: number, logger: Logger): PeriodicPurge {
  return startPeriodicPurge(() => pruneProcessedEvents(db, retentionDays), everyMs, logger, {
    done: 'pruned processed subscription events',
    failed: 'could not prune processed subscription events; will try again',
    context: { retentionDays },
  });
}
