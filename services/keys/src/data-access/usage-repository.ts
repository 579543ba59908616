import type { KeyOperationUsageCount, KeyUsageCount } from '@acs/contracts';
import type { Queryable } from '@acs/db';

export interface DailyUsageRow {
  date: string;
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '429': number;
  '5xx': number;
}

/** A count's status classes as the recordset columns the upserts read. */
const statusColumns = (byStatus: KeyUsageCount['byStatus']) => ({
  s2: byStatus['2xx'],
  s3: byStatus['3xx'],
  s4: byStatus['4xx'],
  s429: byStatus['429'],
  s5: byStatus['5xx'],
});

/** A row's five counter columns (s2..s5, text from PostgreSQL's bigint) as numbers by status class. */
const countsOf = (r: { s2: string; s3: string; s4: string; s429: string; s5: string }) => ({
  '2xx': Number(r.s2),
  '3xx': Number(r.s3),
  '4xx': Number(r.s4),
  '429': Number(r.s429),
  '5xx': Number(r.s5),
});

/**
 * Adds one gateway batch to the daily rows (one statement for the whole batch). The rows are written in
 * key order (as in addOperationUsage), so two gateways' batches lock shared rows in the same order and
 * never deadlock. Counts for a key that no
 * longer exists are dropped by the join, not an error: the batch must never fail for one deleted key.
 */
export async function addDailyUsage(db: Queryable, counts: readonly KeyUsageCount[]): Promise<number> {
  if (counts.length === 0) return 0;
  const rows = counts.map((c) => ({ keyId: c.keyId, date: c.date, ...statusColumns(c.byStatus) }));
  const { rowCount } = await db.query(
    `INSERT INTO api_key_daily_usage AS u (key_id, day, status_2xx, status_3xx, status_4xx, status_429, status_5xx)
     SELECT c."keyId", c."date", sum(c.s2), sum(c.s3), sum(c.s4), sum(c.s429), sum(c.s5)
       FROM jsonb_to_recordset($1::jsonb) AS c("keyId" uuid, "date" date, s2 bigint, s3 bigint, s4 bigint, s429 bigint, s5 bigint)
       JOIN api_keys k ON k.id = c."keyId"
      GROUP BY c."keyId", c."date"
      ORDER BY c."keyId", c."date"
     ON CONFLICT (key_id, day) DO UPDATE SET
       status_2xx = u.status_2xx + EXCLUDED.status_2xx, status_3xx = u.status_3xx + EXCLUDED.status_3xx,
       status_4xx = u.status_4xx + EXCLUDED.status_4xx, status_429 = u.status_429 + EXCLUDED.status_429,
       status_5xx = u.status_5xx + EXCLUDED.status_5xx`,
    [JSON.stringify(rows)],
  );
  return rowCount;
}

/** The key's rows from `since` (a UTC date, inclusive), oldest first; days without traffic have no row. */
export async function readDailyUsage(db: Queryable, keyId: string, since: string): Promise<DailyUsageRow[]> {
  const { rows } = await db.query<{ day: string; s2: string; s3: string; s4: string; s429: string; s5: string }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, status_2xx AS s2, status_3xx AS s3, status_4xx AS s4, status_429 AS s429, status_5xx AS s5
       FROM api_key_daily_usage WHERE key_id = $1 AND day >= $2::date ORDER BY day`,
    [keyId, since],
  );
  return rows.map((r) => ({ date: r.day, ...countsOf(r) }));
}

/** Adds one gateway batch to the hourly per-operation rows; like addDailyUsage, counts of a deleted key are dropped. */
export async function addOperationUsage(db: Queryable, counts: readonly KeyOperationUsageCount[]): Promise<number> {
  if (counts.length === 0) return 0;
  const rows = counts.map((c) => ({ keyId: c.keyId, op: c.operationId, hour: c.hour, ...statusColumns(c.byStatus) }));
  const { rowCount } = await db.query(
    `INSERT INTO api_key_operation_usage AS u (key_id, hour, operation, status_2xx, status_3xx, status_4xx, status_429, status_5xx)
     SELECT c."keyId", date_trunc('hour', c.hour), c.op, sum(c.s2), sum(c.s3), sum(c.s4), sum(c.s429), sum(c.s5)
       FROM jsonb_to_recordset($1::jsonb) AS c("keyId" uuid, op text, hour timestamptz, s2 bigint, s3 bigint, s4 bigint, s429 bigint, s5 bigint)
       JOIN api_keys k ON k.id = c."keyId"
      GROUP BY c."keyId", date_trunc('hour', c.hour), c.op
      ORDER BY c."keyId", date_trunc('hour', c.hour), c.op
     ON CONFLICT (key_id, hour, operation) DO UPDATE SET
       status_2xx = u.status_2xx + EXCLUDED.status_2xx, status_3xx = u.status_3xx + EXCLUDED.status_3xx,
       status_4xx = u.status_4xx + EXCLUDED.status_4xx, status_429 = u.status_429 + EXCLUDED.status_429,
       status_5xx = u.status_5xx + EXCLUDED.status_5xx`,
    [JSON.stringify(rows)],
  );
  return rowCount;
}

export interface OperationUsageRow {
  hour: string;
  operationId: string;
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '429': number;
  '5xx': number;
}

/** The key's hourly rows in [from, to), oldest first, operations in name order within an hour. */
export async function readOperationUsage(db: Queryable, keyId: string, from: Date, to: Date): Promise<OperationUsageRow[]> {
  const { rows } = await db.query<{ hour: Date; op: string; s2: string; s3: string; s4: string; s429: string; s5: string }>(
    `SELECT hour, operation AS op, status_2xx AS s2, status_3xx AS s3, status_4xx AS s4, status_429 AS s429, status_5xx AS s5
       FROM api_key_operation_usage WHERE key_id = $1 AND hour >= $2 AND hour < $3 ORDER BY hour, operation`,
    [keyId, from, to],
  );
  return rows.map((r) => ({ hour: r.hour.toISOString(), operationId: r.op, ...countsOf(r) }));
}

/** Requests per key of a user since `from` (this quota period), from the hourly roll-up. */
export async function requestsPerKeySince(db: Queryable, userId: number, from: Date): Promise<Map<string, number>> {
  const { rows } = await db.query<{ key_id: string; requests: string }>(
    `SELECT u.key_id, sum(u.status_2xx + u.status_3xx + u.status_4xx + u.status_429 + u.status_5xx) AS requests
       FROM api_key_operation_usage u JOIN api_keys k ON k.id = u.key_id
      WHERE k.owner_user_id = $1 AND u.hour >= $2 GROUP BY u.key_id`,
    [userId, from],
  );
  return new Map(rows.map((r) => [r.key_id, Number(r.requests)]));
}

/** Deletes hourly rows older than `days`, in small batches (short statements beside the gateways' upserts). */
export async function purgeOperationUsage(db: Queryable, days: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const { rowCount } = await db.query(
      `DELETE FROM api_key_operation_usage WHERE ctid IN (
         SELECT ctid FROM api_key_operation_usage WHERE hour < now() - make_interval(days => $1) LIMIT 5000)`,
      [days],
    );
    deleted += rowCount;
    if (rowCount < 5000) return deleted;
  }
}
