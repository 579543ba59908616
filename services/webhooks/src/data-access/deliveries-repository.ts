import type { Queryable } from '@acs/db';

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  next_attempt_at: Date | null;
  created_at: Date;
  delivered_at: Date | null;
  /** created_at in microseconds since the epoch, as text: the page cursor (a Date would lose the microseconds). */
  created_us: string;
}

const VIEW_COLUMNS = `id, endpoint_id, event_id, event_type, status, attempts, last_status, last_error, last_duration_ms,
  CASE WHEN status = 'pending' THEN next_attempt_at END AS next_attempt_at, created_at, delivered_at,
  (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_us`;

/**
 * Records the event as processed and makes one delivery per endpoint, in one transaction: a
 * redelivered event finds its id in processed_events and makes nothing (returns null).
 */
export async function fanOut(
  tx: Queryable,
  event: { id: string; busType: string; webhookType: string },
  endpointIds: readonly string[],
  body: string,
): Promise<number | null> {
  const recorded = await tx.query(
    'INSERT INTO processed_events (event_id, type, deliveries) VALUES ($1, $2, $3) ON CONFLICT (event_id) DO NOTHING',
    [event.id, event.busType, endpointIds.length],
  );
  if (recorded.rowCount === 0) return null;
  if (endpointIds.length === 0) return 0;
  const inserted = await tx.query(
    `INSERT INTO deliveries (endpoint_id, event_id, event_type, body, next_attempt_at)
     SELECT endpoint_id, $2, $3, $4, now() FROM unnest($1::uuid[]) AS endpoint_id
     ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
    [endpointIds, event.id, event.webhookType, body],
  );
  return inserted.rowCount;
}

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

/**
 * Claims up to `limit` due deliveries of enabled endpoints, skipping rows another sender holds
 * (SKIP LOCKED) and the endpoints this sender already has `perEndpoint` attempts in flight to;
 * at most `perEndpoint` per endpoint from this call either. A claim moves next_attempt_at a lease
 * ahead: if this sender dies, the delivery is due again when the lease ends.
 */
export async function claimDue(
  db: { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> },
  options: { limit: number; leaseMs: number; busyEndpoints: ReadonlyMap<string, number>; perEndpoint: number },
): Promise<ClaimedDelivery[]> {
  const full = [...options.busyEndpoints].filter(([, n]) => n >= options.perEndpoint).map(([id]) => id);
  return db.transaction(async (tx) => {
    const { rows: candidates } = await tx.query<{ id: string; endpoint_id: string }>(
      `SELECT d.id, d.endpoint_id FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND e.enabled AND NOT (d.endpoint_id = ANY($1::uuid[]))
       ORDER BY d.next_attempt_at
       LIMIT $2
       FOR UPDATE OF d SKIP LOCKED`,
      [full, options.limit * 4],
    );
    const taken = new Map<string, number>();
    const chosen: string[] = [];
    for (const row of candidates) {
      const inFlight = (options.busyEndpoints.get(row.endpoint_id) ?? 0) + (taken.get(row.endpoint_id) ?? 0);
      if (inFlight >= options.perEndpoint || chosen.length >= options.limit) continue;
      taken.set(row.endpoint_id, (taken.get(row.endpoint_id) ?? 0) + 1);
      chosen.push(row.id);
    }
    if (chosen.length === 0) return [];
    const { rows } = await tx.query<{
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
    }>(
      `UPDATE deliveries d SET attempts = d.attempts + 1, claim_token = gen_random_uuid(),
         next_attempt_at = now() + $2 * interval '1 millisecond'
       FROM endpoints e
       WHERE d.id = ANY($1::uuid[]) AND e.id = d.endpoint_id
       RETURNING d.id, d.endpoint_id, e.url, d.body, d.attempts, d.claim_token, e.secret_box, e.previous_secret_box,
         e.previous_secret_ends_at, d.schedule_started_at, d.retry_index`,
      [chosen, options.leaseMs],
    );
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
  });
}

export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  startedAt: Date;
  status: number | null;
  durationMs: number;
  error: string | null;
}

/** Logs an attempt; nothing when the delivery is gone meanwhile (its endpoint was deleted during the attempt). */
export async function insertAttempt(tx: Queryable, record: AttemptRecord): Promise<void> {
  await tx.query(
    `INSERT INTO delivery_attempts (delivery_id, attempt, started_at, status, duration_ms, error)
     SELECT id, $2, $3, $4, $5, $6 FROM deliveries WHERE id = $1`,
    [record.deliveryId, record.attempt, record.startedAt, record.status, record.durationMs, record.error],
  );
}

/**
 * What an attempt's outcome does to the delivery: delivered, retried after `retryInMs`, or failed
 * (given up). Applies only while `claimToken` is still the delivery's: a claim whose lease ended was
 * taken over, and its late outcome changes nothing. Returns whether it applied.
 */
export async function settleDelivery(
  tx: Queryable,
  deliveryId: string,
  claimToken: string,
  outcome: { kind: 'delivered' } | { kind: 'retry'; retryInMs: number } | { kind: 'failed' },
  attempt: Pick<AttemptRecord, 'status' | 'durationMs' | 'error'>,
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE deliveries SET
       status = $3,
       next_attempt_at = CASE WHEN $3 = 'pending' THEN now() + $4 * interval '1 millisecond' END,
       retry_index = CASE WHEN $3 = 'pending' THEN retry_index + 1 ELSE retry_index END,
       delivered_at = CASE WHEN $3 = 'delivered' THEN now() ELSE delivered_at END,
       claim_token = NULL, last_status = $5, last_duration_ms = $6, last_error = $7
     WHERE id = $1 AND claim_token = $2`,
    [
      deliveryId,
      claimToken,
      outcome.kind === 'retry' ? 'pending' : outcome.kind,
      outcome.kind === 'retry' ? outcome.retryInMs : 0,
      attempt.status,
      attempt.durationMs,
      attempt.error,
    ],
  );
  return rowCount > 0;
}

/** A page of an endpoint's deliveries, newest first, starting after the cursor `(created_us, id)`. */
export async function deliveriesPage(
  db: Queryable,
  endpointId: string,
  pageSize: number,
  after: { createdUs: string; id: string } | null,
): Promise<DeliveryRow[]> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${VIEW_COLUMNS} FROM deliveries
     WHERE endpoint_id = $1 AND ($2::bigint IS NULL OR ((extract(epoch FROM created_at) * 1000000)::bigint, id) < ($2::bigint, $3::uuid))
     ORDER BY created_at DESC, id DESC
     LIMIT $4`,
    [endpointId, after?.createdUs ?? null, after?.id ?? null, pageSize],
  );
  return rows;
}

/** Due now with a fresh schedule, same id and body (a replay). Null for an unknown delivery of this endpoint. */
export async function replayDelivery(db: Queryable, endpointId: string, deliveryId: string): Promise<DeliveryRow | null> {
  const { rows } = await db.query<DeliveryRow>(
    `UPDATE deliveries SET status = 'pending', next_attempt_at = now(), retry_index = 0, schedule_started_at = now(), claim_token = NULL
     WHERE id = $1 AND endpoint_id = $2 RETURNING ${VIEW_COLUMNS}`,
    [deliveryId, endpointId],
  );
  return rows[0] ?? null;
}

/** Deletes finished deliveries (and, by cascade, their attempts) and processed-event ids older than `days`. */
export async function pruneOlderThan(db: Queryable, days: number): Promise<{ deliveries: number; events: number }> {
  const deliveries = await db.query("DELETE FROM deliveries WHERE status <> 'pending' AND created_at < now() - $1 * interval '1 day'", [
    days,
  ]);
  const events = await db.query("DELETE FROM processed_events WHERE processed_at < now() - $1 * interval '1 day'", [days]);
  return { deliveries: deliveries.rowCount, events: events.rowCount };
}
