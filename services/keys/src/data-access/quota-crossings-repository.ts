import {
  QUOTA_THRESHOLD_EVENT_TYPE,
  QUOTA_THRESHOLD_ROUTING_KEY,
  quotaThresholdEventPayloadSchema,
  type QuotaThresholdCrossing,
  type QuotaThresholdEventPayload,
} from '@acs/contracts';
import type { Queryable } from '@acs/db';

/**
 * Records the gateways' threshold crossings, each once per (user, period, period start, percent):
 * several gateways (or a retried batch) reporting the same one add nothing. The rows stay unpublished
 * (published_at NULL) for the bus publisher. Returns how many were new.
 */
export async function recordQuotaCrossings(db: Queryable, crossings: readonly QuotaThresholdCrossing[]): Promise<number> {
  if (crossings.length === 0) return 0;
  const { rowCount } = await db.query(
    `INSERT INTO quota_threshold_crossings (user_id, period, period_start, percent, plan, quota)
     SELECT DISTINCT ON (c."userId", c.period, c."periodStart", c.percent) c."userId", c.period, c."periodStart", c.percent, c.plan, c.quota
       FROM jsonb_to_recordset($1::jsonb) AS c("userId" bigint, period text, "periodStart" text, percent smallint, plan text, quota bigint)
     ON CONFLICT (user_id, period, period_start, percent) DO NOTHING`,
    [JSON.stringify(crossings)],
  );
  return rowCount;
}

/** A recorded crossing as the bus event it becomes (`quota.threshold.v1`), with the routing key to publish it under. */
export interface QuotaThresholdOutboxEvent {
  routingKey: string;
  envelope: { id: string; type: string; occurredAt: string; payload: QuotaThresholdEventPayload };
}

/**
 * Where the keys service's bus publisher hooks in: the oldest crossings not yet published, as events
 * (the row's event_id is the event id, so a republish after a crash is deduplicated by consumers).
 * Publish each, then markQuotaCrossingPublished.
 */
export async function unpublishedQuotaCrossings(db: Queryable, limit: number): Promise<QuotaThresholdOutboxEvent[]> {
  const { rows } = await db.query<{
    event_id: string;
    user_id: string;
    period: string;
    period_start: string;
    percent: number;
    plan: string;
    quota: string;
    occurred_at: Date;
  }>(
    `SELECT event_id, user_id, period, period_start, percent, plan, quota, occurred_at FROM quota_threshold_crossings
      WHERE published_at IS NULL ORDER BY occurred_at, event_id LIMIT $1`,
    [limit],
  );
  return rows.map((row) => {
    const occurredAt = row.occurred_at.toISOString();
    const payload = quotaThresholdEventPayloadSchema.parse({
      eventId: row.event_id,
      userId: Number(row.user_id),
      plan: row.plan,
      period: row.period,
      periodStart: row.period_start,
      percent: Number(row.percent),
      quota: Number(row.quota),
      occurredAt,
    });
    return {
      routingKey: QUOTA_THRESHOLD_ROUTING_KEY,
      envelope: { id: row.event_id, type: QUOTA_THRESHOLD_EVENT_TYPE, occurredAt, payload },
    };
  });
}

export async function markQuotaCrossingPublished(db: Queryable, eventId: string): Promise<void> {
  await db.query('UPDATE quota_threshold_crossings SET published_at = now() WHERE event_id = $1', [eventId]);
}
