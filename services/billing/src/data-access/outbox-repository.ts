import type { Queryable } from '@acs/db';
import { parseTraceCarrier, type TraceCarrier } from '../relay/trace-context.js';

export interface OutboxRow {
  id: number;
  eventId: string;
  userId: number;
  type: string;
  routingKey: string;
  payload: Record<string, unknown>;
  occurredAt: Date;
  attempts: number;
  /** The trace of the request that wrote the event; null when it was not traced. */
  traceContext: TraceCarrier | null;
}

interface Row {
  id: number | string;
  event_id: string;
  user_id: number | string;
  type: string;
  routing_key: string;
  payload: Record<string, unknown> | string;
  occurred_at: Date;
  attempts: number;
  trace_context: unknown;
}

/** An event as the use case writes it; the row id (which the relay adds to the payload as `sequence`) and the attempts come from the table. */
export type NewOutboxEvent = Omit<OutboxRow, 'id' | 'attempts'>;

export async function insertOutboxEvent(tx: Queryable, event: NewOutboxEvent): Promise<number> {
  const { rows } = await tx.query<{ id: number | string }>(
    `INSERT INTO outbox (event_id, user_id, type, routing_key, payload, occurred_at, trace_context)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb) RETURNING id`,
    [
      event.eventId,
      event.userId,
      event.type,
      event.routingKey,
      JSON.stringify(event.payload),
      event.occurredAt,
      event.traceContext === null ? null : JSON.stringify(event.traceContext),
    ],
  );
  return Number(rows[0]!.id);
}

/** The oldest unsent rows, in the order they must go out. */
export async function unsentEvents(db: Queryable, limit: number): Promise<OutboxRow[]> {
  const { rows } = await db.query<Row>(
    `SELECT id, event_id, user_id, type, routing_key, payload, occurred_at, attempts, trace_context
     FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT $1`,
    [limit],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    eventId: row.event_id,
    userId: Number(row.user_id),
    type: row.type,
    routingKey: row.routing_key,
    payload: typeof row.payload === 'string' ? (JSON.parse(row.payload) as Record<string, unknown>) : row.payload,
    occurredAt: row.occurred_at,
    attempts: Number(row.attempts),
    traceContext: parseTraceCarrier(row.trace_context),
  }));
}

export async function markSent(db: Queryable, id: number): Promise<void> {
  await db.query('UPDATE outbox SET sent_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = $1', [id]);
}

export async function markFailed(db: Queryable, id: number, error: string): Promise<void> {
  await db.query('UPDATE outbox SET attempts = attempts + 1, last_error = $2 WHERE id = $1', [id, error.slice(0, 1000)]);
}

/** Only one relay publishes at a time across replicas (per-user order); held until the transaction ends. */
const RELAY_LOCK_KEY = 0x62696c6c; // 'bill'

export async function tryRelayLock(tx: Queryable): Promise<boolean> {
  const { rows } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1::bigint) AS locked', [RELAY_LOCK_KEY]);
  return rows[0]!.locked;
}

export interface PendingOutbox {
  count: number;
  /** Seconds since the oldest unsent event was written; 0 when none is waiting. */
  oldestAgeSeconds: number;
}

/** Reads only the unsent rows, through outbox_unsent_idx (a partial index), so a scrape stays cheap however long the outbox grows. */
export async function pendingOutbox(db: Queryable): Promise<PendingOutbox> {
  const { rows } = await db.query<{ n: number | string; age: number | string | null }>(
    'SELECT count(*) AS n, GREATEST(0, EXTRACT(EPOCH FROM now() - min(occurred_at))) AS age FROM outbox WHERE sent_at IS NULL',
  );
  return { count: Number(rows[0]!.n), oldestAgeSeconds: Number(rows[0]!.age ?? 0) };
}
