import type { Queryable } from '@acs/db';
import type { PlanQuota } from '@acs/contracts';
import type { BillingInterval, Plan } from '../domain/plan.js';

interface PlanRow {
  id: string;
  name: string;
  plan_type: number;
  price_minor: number;
  currency: string;
  billing_interval: BillingInterval;
  quota_per_month: number | string | null;
  quota_per_day: number | string | null;
}

const COLUMNS = 'id, name, plan_type, price_minor, currency, billing_interval, quota_per_month, quota_per_day';
const cap = (value: number | string | null): number | null => (value === null ? null : Number(value));

const fromRow = (row: PlanRow): Plan => ({
  id: row.id,
  name: row.name,
  planType: Number(row.plan_type),
  priceMinor: Number(row.price_minor),
  currency: row.currency,
  billingInterval: row.billing_interval,
  quota: { perMonth: cap(row.quota_per_month), perDay: cap(row.quota_per_day) },
});

export async function listPlans(db: Queryable): Promise<Plan[]> {
  const { rows } = await db.query<PlanRow>(`SELECT ${COLUMNS} FROM plans ORDER BY sort_order, id`);
  return rows.map(fromRow);
}

export async function findPlan(db: Queryable, id: string): Promise<Plan | null> {
  const { rows } = await db.query<PlanRow>(`SELECT ${COLUMNS} FROM plans WHERE id = $1`, [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Changes the caps named in `change` (absent: kept); null when there is no such plan. */
export async function updatePlanQuota(tx: Queryable, id: string, change: Partial<PlanQuota>): Promise<Plan | null> {
  const { rows } = await tx.query<PlanRow>(
    `UPDATE plans SET quota_per_month = CASE WHEN $2 THEN $3::bigint ELSE quota_per_month END,
                      quota_per_day = CASE WHEN $4 THEN $5::bigint ELSE quota_per_day END
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, change.perMonth !== undefined, change.perMonth ?? null, change.perDay !== undefined, change.perDay ?? null],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/**
 * The plan's quota as an event carries it. FOR SHARE: a concurrent set-quota (which updates the row
 * before writing its own event) commits wholly before or after, so the outbox order matches the quota order.
 */
export async function planQuotaForEvent(tx: Queryable, id: string): Promise<PlanQuota | null> {
  const { rows } = await tx.query<PlanRow>(`SELECT ${COLUMNS} FROM plans WHERE id = $1 FOR SHARE`, [id]);
  return rows[0] ? fromRow(rows[0]).quota : null;
}
