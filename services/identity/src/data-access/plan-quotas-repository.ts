import type { PlanQuota } from '@acs/contracts';
import type { Queryable } from '@acs/db';

/** identity's own rows of plan_quotas: the trial's and the no-subscription quota (its configuration). */
export async function storeFallbackQuotas(db: Queryable, quotas: { trial: PlanQuota; none: PlanQuota }): Promise<void> {
  await db.query(
    `INSERT INTO plan_quotas (plan_id, per_month, per_day) VALUES ('trial', $1, $2), ('none', $3, $4)
     ON CONFLICT (plan_id) DO UPDATE SET per_month = EXCLUDED.per_month, per_day = EXCLUDED.per_day, updated_at = now()`,
    [quotas.trial.perMonth, quotas.trial.perDay, quotas.none.perMonth, quotas.none.perDay],
  );
}

/**
 * A plan's quota from billing, kept only when `sequence` (billing's outbox position) is at least the
 * stored one: an event arriving late never replaces a newer quota. True when it is the newest (stored or
 * equal: a redelivery, whose rewrite of the users' records may not have finished).
 */
export async function storePlanQuota(db: Queryable, planId: string, quota: PlanQuota, sequence: number): Promise<boolean> {
  const { rows } = await db.query<{ sequence: string }>(
    `INSERT INTO plan_quotas (plan_id, per_month, per_day, sequence) VALUES ($1, $2, $3, $4)
     ON CONFLICT (plan_id) DO UPDATE SET per_month = EXCLUDED.per_month, per_day = EXCLUDED.per_day,
       sequence = EXCLUDED.sequence, updated_at = now()
       WHERE plan_quotas.sequence <= EXCLUDED.sequence
     RETURNING sequence`,
    [planId, quota.perMonth, quota.perDay, sequence],
  );
  return rows.length > 0;
}
