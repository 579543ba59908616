import type { Queryable } from '@acs/db';

export interface ProcessedEvent {
  eventId: string;
  type: string;
  userId: number;
  occurredAt: Date;
  sequence: number;
}

/** Locks the user's row for the rest of the transaction; false when there is no such user. */
export async function lockUserRow(tx: Queryable, userId: number): Promise<boolean> {
  const { rows } = await tx.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
  return rows.length > 0;
}

/** Records the event; false when it was recorded before (a redelivery). */
export async function recordProcessedEvent(tx: Queryable, event: ProcessedEvent, applied: boolean): Promise<boolean> {
  const { rowCount } = await tx.query(
    `INSERT INTO processed_events (event_id, event_type, user_id, occurred_at, sequence, applied) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (event_id) DO NOTHING`,
    [event.eventId, event.type, event.userId, event.occurredAt, event.sequence, applied],
  );
  return rowCount > 0;
}

export async function isProcessed(tx: Queryable, eventId: string): Promise<boolean> {
  const { rows } = await tx.query('SELECT 1 FROM processed_events WHERE event_id = $1', [eventId]);
  return rows.length > 0;
}

/**
 * Whether a newer event of this user was applied already (this one arrived late). Newer means a
 * higher sequence (billing's outbox row id) and nothing else: occurredAt comes from the clock of
 * whichever billing pod wrote the event, and two pods' clocks may differ, so ordering by it could
 * drop a cancellation as stale and leave a cancelled plan active.
 */
export async function newerEventApplied(tx: Queryable, event: ProcessedEvent): Promise<boolean> {
  const { rows } = await tx.query('SELECT 1 FROM processed_events WHERE user_id = $1 AND applied AND sequence > $2 LIMIT 1', [
    event.userId,
    event.sequence,
  ]);
  return rows.length > 0;
}

export async function updateUserSubscription(
  tx: Queryable,
  userId: number,
  subscriptionEndsAt: Date,
  planType: number,
  planId: string,
): Promise<boolean> {
  const { rowCount } = await tx.query(
    'UPDATE users SET subscription_ends_at = $2, plan_type = $3, plan_id = $4, updated_at = now(), version = version + 1 WHERE id = $1',
    [userId, subscriptionEndsAt, planType, planId],
  );
  return rowCount > 0;
}
