import type { Queryable } from '@acs/db';

/** A delivery claimed for one attempt, with what signing and sending it needs. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  url: string;
  body: string;
  attempt: number;
  claimToken: string;
  secretBox: string;
  previousSecretBox: string | null;
  previousSecretEndsAt: Date | null;
  scheduleStartedAt: Date;
  retryIndex: number;
}

interface ClaimedRow {
  id: string;
  endpoint_id: string;
  url: string;
  body: string;
  attempts: number;
  claim_token: string;
  secret_box: string;
  previous_secret_box: string | null;
  previous_secret_ends_at: Date | null;
  schedule_started_at: Date;
  retry_index: number;
}

/*
 * One statement, so one round trip and no transaction of our own: lock up to $4 due rows of
 * enabled endpoints that no other sender holds (SKIP LOCKED) and that are not at their cap here
 * ($7: so a slow endpoint's backlog cannot fill the locked rows), keep per endpoint only as many as
 * its free slots ($2/$3: the endpoints this sender is busy with and how many it has in flight to
 * each), the earliest due first and at most $5 in all, and claim those. Rows locked but not kept
 * are released when the statement ends. PostgreSQL refuses a window function next to FOR UPDATE,
 * hence the ranking in a second step.
 */
const CLAIM_DUE_SQL = `
WITH locked AS (
  SELECT d.id, d.endpoint_id, d.next_attempt_at FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
  WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND e.enabled AND NOT (d.endpoint_id = ANY($7::uuid[]))
  ORDER BY d.next_attempt_at
  LIMIT $4
  FOR UPDATE OF d SKIP LOCKED
), ranked AS (
  SELECT l.id, l.next_attempt_at,
    row_number() OVER (PARTITION BY l.endpoint_id ORDER BY l.next_attempt_at, l.id) + coalesce(busy.n, 0) AS slot
  FROM locked l LEFT JOIN unnest($2::uuid[], $3::int[]) AS busy (endpoint_id, n) ON busy.endpoint_id = l.endpoint_id
), chosen AS (
  SELECT id FROM ranked WHERE slot <= $1 ORDER BY next_attempt_at, id LIMIT $5
)
UPDATE deliveries d SET attempts = d.attempts + 1, claim_token = gen_random_uuid(),
  next_attempt_at = now() + $6 * interval '1 millisecond'
FROM endpoints e
WHERE d.id IN (SELECT id FROM chosen) AND e.id = d.endpoint_id
RETURNING d.id, d.endpoint_id, e.url, d.body, d.attempts, d.claim_token, e.secret_box, e.previous_secret_box,
  e.previous_secret_ends_at, d.schedule_started_at, d.retry_index`;

/**
 * Claims up to `limit` due deliveries of enabled endpoints, skipping rows another sender holds
 * and giving no endpoint more than `perEndpoint` attempts in flight from this sender (counting
 * `busyEndpoints`, those it already has). A claim moves next_attempt_at a lease ahead and sets a
 * new claim token: if this sender dies, the delivery is due again when the lease ends.
 */
export async function claimDue(
  db: Queryable,
  options: { limit: number; leaseMs: number; busyEndpoints: ReadonlyMap<string, number>; perEndpoint: number },
): Promise<ClaimedDelivery[]> {
  const busy = [...options.busyEndpoints];
  const { rows } = await db.query<ClaimedRow>(CLAIM_DUE_SQL, [
    options.perEndpoint,
    busy.map(([id]) => id),
    busy.map(([, n]) => n),
    // Room for the rows of busy endpoints that the ranking drops.
    options.limit * 4,
    options.limit,
    options.leaseMs,
    busy.filter(([, n]) => n >= options.perEndpoint).map(([id]) => id),
  ]);
  return rows.map((row) => ({
    id: row.id,
    endpointId: row.endpoint_id,
    url: row.url,
    body: row.body,
    attempt: row.attempts,
    claimToken: row.claim_token,
    secretBox: row.secret_box,
    previousSecretBox: row.previous_secret_box,
    previousSecretEndsAt: row.previous_secret_ends_at,
    scheduleStartedAt: row.schedule_started_at,
    retryIndex: row.retry_index,
  }));
}
