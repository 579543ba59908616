import type { Queryable } from '@acs/db';

export interface StoredAnswer {
  requestHash: string;
  status: number;
  body: unknown;
}

/** The answer stored for (user, key) within the retention; older rows count as absent. */
export async function findAnswer(db: Queryable, userId: number, key: string, ttlSeconds: number): Promise<StoredAnswer | null> {
  const { rows } = await db.query<{ request_hash: string; response_status: number; response_body: unknown }>(
    `SELECT request_hash, response_status, response_body FROM idempotency_keys
     WHERE user_id = $1 AND key = $2 AND created_at > now() - make_interval(secs => $3)`,
    [userId, key, ttlSeconds],
  );
  const row = rows[0];
  if (!row) return null;
  const body = typeof row.response_body === 'string' ? (JSON.parse(row.response_body) as unknown) : row.response_body;
  return { requestHash: row.request_hash, status: Number(row.response_status), body };
}

/** Stores (or, over an expired row, replaces) the answer; runs in the transaction that made it. */
export async function saveAnswer(tx: Queryable, userId: number, key: string, answer: StoredAnswer): Promise<void> {
  await tx.query(
    `INSERT INTO idempotency_keys (user_id, key, request_hash, response_status, response_body) VALUES ($1, $2, $3, $4, $5::jsonb)
     ON CONFLICT (user_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, response_status = EXCLUDED.response_status,
       response_body = EXCLUDED.response_body, created_at = now()`,
    [userId, key, answer.requestHash, answer.status, JSON.stringify(answer.body)],
  );
}

export async function purgeExpiredAnswers(db: Queryable, ttlSeconds: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM idempotency_keys WHERE created_at <= now() - make_interval(secs => $1)', [ttlSeconds]);
  return rowCount;
}
