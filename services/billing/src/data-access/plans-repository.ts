import type { Queryable } from '@acs/db';
import type { BillingInterval, Plan } from '../domain/plan.js';

interface PlanRow {
  id: string;
  name: string;
  plan_type: number;
  price_minor: number;
  currency: string;
  billing_interval: BillingInterval;
}

const COLUMNS = 'id, name, plan_type, price_minor, currency, billing_interval';

const fromRow = (row: PlanRow): Plan => ({
  id: row.id,
  name: row.name,
  planType: Number(row.plan_type),
  priceMinor: Number(row.price_minor),
  currency: row.currency,
  billingInterval: row.billing_interval,
});

export async function listPlans(db: Queryable): Promise<Plan[]> {
  const { rows } = await db.query<PlanRow>(`SELECT ${COLUMNS} FROM plans ORDER BY sort_order, id`);
  return rows.map(fromRow);
}

export async function findPlan(db: Queryable, id: string): Promise<Plan | null> {
  const { rows } = await db.query<PlanRow>(`SELECT ${COLUMNS} FROM plans WHERE id = $1`, [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}
