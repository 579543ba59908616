import { type Queryable, jsonbParameter } from '@acs/db';
import type { OutboxTable } from './outbox-table.js';
import { parseTraceCarrier, type TraceCarrier } from './trace-context.js';

export interface OutboxRow {
  id: number;
  eventId: string;
  /** The user the event is about; null for an event about no user (a system key). */
  userId: number | null;
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
  user_id: number | string | null;
  type: string;
  routing_key: string;
  payload: Record<string, unknown> | string;
  occurred_at: Date;
  attempts: number;
  trace_context: unknown;
}

/** A row to write: everything but the id and the attempts, which the table and the relay keep. The payload is as stored; the relay's toEnvelope may add to it (billing adds `sequence`, the row id). */
export type NewOutboxEvent = Omit<OutboxRow, 'id' | 'attempts'>;

/** Written inside the caller's transaction, so the change and its event commit together or not at all. */
export async function insertOutboxEvent(tx: Queryable, table: OutboxTable, event: NewOutboxEvent): Promise<number> {
  const { rows } = await tx.query<{ id: number | string }>(
    `INSERT INTO ${table.name} (event_id, user_id, type, routing_key, payload, occurred_at, trace_context)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb) RETURNING id`,
    [
      event.eventId,
      event.userId,
      event.type,
      event.routingKey,
      JSON.stringify(event.payload),
      event.occurredAt,
      jsonbParameter(event.traceContext),
    ],
  );
  return Number(rows[0]!.id);
}

function toOutboxRow(row: Row): OutboxRow {
  return {
    id: Number(row.id),
    eventId: row.event_id,
    userId: row.user_id === null ? null : Number(row.user_id),
    type: row.type,
    routingKey: row.routing_key,
    payload: typeof row.payload === 'string' ? (JSON.parse(row.payload) as Record<string, unknown>) : row.payload,
    occurredAt: row.occurred_at,
    attempts: Number(row.attempts),
    traceContext: parseTraceCarrier(row.trace_context),
  };
}

/** The oldest unsent rows, in the order they must go out. */
export async function unsentEvents(db: Queryable, table: OutboxTable, limit: number): Promise<OutboxRow[]> {
  const { rows } = await db.query<Row>(
    `SELECT id, event_id, user_id, type, routing_key, payload, occurred_at, attempts, trace_context
     FROM ${table.name} WHERE sent_at IS NULL ORDER BY id LIMIT $1`,
    [limit],
  );
  return rows.map(toOutboxRow);
}

export async function markSent(db: Queryable, table: OutboxTable, id: number): Promise<void> {
  await db.query(`UPDATE ${table.name} SET sent_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = $1`, [id]);
}

export async function markFailed(db: Queryable, table: OutboxTable, id: number, error: string): Promise<void> {
  await db.query(`UPDATE ${table.name} SET attempts = attempts + 1, last_error = $2 WHERE id = $1`, [id, error.slice(0, 1000)]);
}

/** Only one relay publishes a table at a time across replicas (per-user order); held until the transaction ends. */
export async function tryRelayLock(tx: Queryable, table: OutboxTable): Promise<boolean> {
  const { rows } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1::bigint) AS locked', [table.lockKey]);
  return rows[0]!.locked;
}

export interface PendingOutbox {
  count: number;
  /** Seconds since the oldest unsent event was written; 0 when none is waiting. */
  oldestAgeSeconds: number;
}

/** Reads only the unsent rows, through the table's partial index on unsent ids, so a scrape stays cheap however long the outbox grows. */
export async function pendingOutbox(db: Queryable, table: OutboxTable): Promise<PendingOutbox> {
  const { rows } = await db.query<{ n: number | string; age: number | string | null }>(
    `SELECT count(*) AS n, GREATEST(0, EXTRACT(EPOCH FROM now() - min(occurred_at))) AS age FROM ${table.name} WHERE sent_at IS NULL`,
  );
  return { count: Number(rows[0]!.n), oldestAgeSeconds: Number(rows[0]!.age ?? 0) };
}
