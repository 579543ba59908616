import type { Queryable } from '@acs/db';
import type { StoredStatus, Subscription } from '../domain/subscription.js';

interface SubscriptionRow {
  id: string;
  user_id: number | string;
  plan_id: string;
  plan_type: number;
  status: StoredStatus;
  current_period_start: Date;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  canceled_at: Date | null;
  ended_at: Date | null;
  created_at: Date;
}

const COLUMNS =
  'id, user_id, plan_id, plan_type, status, current_period_start, current_period_end, cancel_at_period_end, canceled_at, ended_at, created_at';

const fromRow = (row: SubscriptionRow): Subscription => ({
  id: row.id,
  userId: Number(row.user_id),
  planId: row.plan_id,
  planType: Number(row.plan_type),
  status: row.status,
  currentPeriodStart: row.current_period_start,
  currentPeriodEnd: row.current_period_end,
  cancelAtPeriodEnd: row.cancel_at_period_end,
  canceledAt: row.canceled_at,
  endedAt: row.ended_at,
  createdAt: row.created_at,
});

/** Serializes every subscription change of one user (the lock ends with the transaction). */
export async function lockUser(tx: Queryable, userId: number): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [userId]);
}

export async function findActiveSubscription(db: Queryable, userId: number): Promise<Subscription | null> {
  const { rows } = await db.query<SubscriptionRow>(`SELECT ${COLUMNS} FROM subscriptions WHERE user_id = $1 AND status = 'active'`, [
    userId,
  ]);
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function findSubscription(db: Queryable, id: string): Promise<Subscription | null> {
  const { rows } = await db.query<SubscriptionRow>(`SELECT ${COLUMNS} FROM subscriptions WHERE id = $1`, [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Newest first; created_at is clock_timestamp(), the id breaks (theoretical) ties. */
export async function listSubscriptions(db: Queryable, userId: number): Promise<Subscription[]> {
  const { rows } = await db.query<SubscriptionRow>(
    `SELECT ${COLUMNS} FROM subscriptions WHERE user_id = $1 ORDER BY created_at DESC, id DESC`,
    [userId],
  );
  return rows.map(fromRow);
}

export interface NewSubscription {
  userId: number;
  planId: string;
  planType: number;
  currentPeriodStart: Date;
  currentPeriodEnd: Date | null;
}

export async function insertSubscription(tx: Queryable, input: NewSubscription): Promise<Subscription> {
  const { rows } = await tx.query<SubscriptionRow>(
    `INSERT INTO subscriptions (user_id, plan_id, plan_type, status, current_period_start, current_period_end)
     VALUES ($1, $2, $3, 'active', $4, $5) RETURNING ${COLUMNS}`,
    [input.userId, input.planId, input.planType, input.currentPeriodStart, input.currentPeriodEnd],
  );
  return fromRow(rows[0]!);
}

/** Ends an active subscription at `at`, as `replaced` (another plan took over), `canceled` or `expired`. */
export async function endSubscription(
  tx: Queryable,
  id: string,
  status: 'replaced' | 'canceled' | 'expired',
  at: Date,
): Promise<Subscription> {
  const { rows } = await tx.query<SubscriptionRow>(
    `UPDATE subscriptions SET status = $2, ended_at = $3, current_period_end = CASE WHEN $2 = 'canceled' THEN $3 ELSE current_period_end END,
       canceled_at = CASE WHEN $2 = 'canceled' THEN $3 ELSE canceled_at END
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, status, at],
  );
  return fromRow(rows[0]!);
}

export async function markCancelAtPeriodEnd(tx: Queryable, id: string, at: Date): Promise<Subscription> {
  const { rows } = await tx.query<SubscriptionRow>(
    `UPDATE subscriptions SET cancel_at_period_end = true, canceled_at = $2 WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, at],
  );
  return fromRow(rows[0]!);
}
