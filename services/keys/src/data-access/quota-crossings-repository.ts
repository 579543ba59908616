import type { QuotaThresholdCrossing } from '@acs/contracts';
import type { Queryable } from '@acs/db';

/** A crossing this call recorded for the first time, with the event id it is published under. */
export interface NewQuotaCrossing extends QuotaThresholdCrossing {
  eventId: string;
  occurredAt: Date;
}

/**
 * Records the gateways' threshold crossings, each once per (user, period, period start, percent):
 * several gateways (or a retried batch) reporting the same one add nothing. Returns the crossings that
 * are new, for the caller to put in the outbox in the same transaction (published_at: when that was).
 */
export async function recordQuotaCrossings(tx: Queryable, crossings: readonly QuotaThresholdCrossing[]): Promise<NewQuotaCrossing[]> {
  if (crossings.length === 0) return [];
  const { rows } = await tx.query<{
    event_id: string;
    user_id: string;
    period: 'day' | 'month';
    period_start: string;
    percent: 80 | 90 | 100;
    plan: string;
    quota: string;
    occurred_at: Date;
  }>(
    `INSERT INTO quota_threshold_crossings (user_id, period, period_start, percent, plan, quota, published_at)
     SELECT DISTINCT ON (c."userId", c.period, c."periodStart", c.percent) c."userId", c.period, c."periodStart", c.percent, c.plan, c.quota, now()
       FROM jsonb_to_recordset($1::jsonb) AS c("userId" bigint, period text, "periodStart" text, percent smallint, plan text, quota bigint)
     ON CONFLICT (user_id, period, period_start, percent) DO NOTHING
     RETURNING event_id, user_id, period, period_start, percent, plan, quota, occurred_at`,
    [JSON.stringify(crossings)],
  );
  return rows.map((row) => ({
    eventId: row.event_id,
    userId: Number(row.user_id),
    plan: row.plan,
    period: row.period,
    periodStart: row.period_start,
    percent: Number(row.percent) as 80 | 90 | 100,
    quota: Number(row.quota),
    occurredAt: row.occurred_at,
  }));
}
