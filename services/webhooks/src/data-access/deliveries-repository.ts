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
