import type { QuotaThresholdCrossing } from '@acs/contracts';
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
