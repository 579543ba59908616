import type { KeyUsageCount } from '@acs/contracts';
import type { Queryable } from '@acs/db';

export interface DailyUsageRow {
  date: string;
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '429': number;
  '5xx': number;
}

/**
 * Adds one gateway batch to the daily rows (one statement for the whole batch). Counts for a key that no
 * longer exists are dropped by the join, not an error: the batch must never fail for one deleted key.
 */
export async function addDailyUsage(db: Queryable, counts: readonly KeyUsageCount[]): Promise<number> {
  if (counts.length === 0) return 0;
  const rows = counts.map((c) => ({
    keyId: c.keyId,
    date: c.date,
    s2: c.byStatus['2xx'],
    s3: c.byStatus['3xx'],
    s4: c.byStatus['4xx'],
    s429: c.byStatus['429'],
    s5: c.byStatus['5xx'],
  }));
  const { rowCount } = await db.query(
    `INSERT INTO api_key_daily_usage AS u (key_id, day, status_2xx, status_3xx, status_4xx, status_429, status_5xx)
     SELECT c."keyId", c."date", sum(c.s2), sum(c.s3), sum(c.s4), sum(c.s429), sum(c.s5)
       FROM jsonb_to_recordset($1::jsonb) AS c("keyId" uuid, "date" date, s2 bigint, s3 bigint, s4 bigint, s429 bigint, s5 bigint)
       JOIN api_keys k ON k.id = c."keyId"
      GROUP BY c."keyId", c."date"
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
  return rows.map((r) => ({
    date: r.day,
    '2xx': Number(r.s2),
    '3xx': Number(r.s3),
    '4xx': Number(r.s4),
    '429': Number(r.s429),
    '5xx': Number(r.s5),
  }));
}
