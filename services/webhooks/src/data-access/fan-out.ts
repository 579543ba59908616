import type { Queryable } from '@acs/db';

/** An event to fan out: its bus id and type, the webhook type its endpoints subscribe to, its owner and the body every attempt sends. */
export interface FanOutEvent {
  id: string;
  busType: string;
  webhookType: string;
  userId: number;
  body: string;
}

/*
 * Many events in one statement (one round trip, one commit): record each event as processed and,
 * for the events recorded now (not those another delivery of the same message recorded before),
 * make one delivery per endpoint of its user subscribed to its type. Events and their deliveries
 * commit together, so a redelivered event makes nothing twice.
 */
const FAN_OUT_SQL = `
WITH input AS (
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bigint[], $5::text[])
    AS i (event_id, bus_type, webhook_type, user_id, body)
), targets AS (
  SELECT i.event_id, e.id AS endpoint_id FROM input i
  JOIN endpoints e ON e.user_id = i.user_id AND e.events @> ARRAY[i.webhook_type]
), recorded AS (
  INSERT INTO processed_events (event_id, type, deliveries)
  SELECT i.event_id, i.bus_type, (SELECT count(*) FROM targets t WHERE t.event_id = i.event_id) FROM input i
  ORDER BY i.event_id
  ON CONFLICT (event_id) DO NOTHING
  RETURNING event_id
), made AS (
  INSERT INTO deliveries (endpoint_id, event_id, event_type, body, next_attempt_at)
  SELECT t.endpoint_id, i.event_id, i.webhook_type, i.body, now()
  FROM targets t JOIN input i ON i.event_id = t.event_id
  WHERE t.event_id IN (SELECT event_id FROM recorded)
  ON CONFLICT (endpoint_id, event_id) DO NOTHING
  RETURNING event_id
)
SELECT r.event_id, (SELECT count(*) FROM made m WHERE m.event_id = r.event_id)::int AS made FROM recorded r`;

/**
 * Fans out distinct events (no id twice). Answers, per event in order, the deliveries made, or
 * null for an event already processed (a redelivery).
 */
export async function fanOutEvents(db: Queryable, events: readonly FanOutEvent[]): Promise<(number | null)[]> {
  if (events.length === 0) return [];
  const { rows } = await db.query<{ event_id: string; made: number }>(FAN_OUT_SQL, [
    events.map((e) => e.id),
    events.map((e) => e.busType),
    events.map((e) => e.webhookType),
    events.map((e) => e.userId),
    events.map((e) => e.body),
  ]);
  const made = new Map(rows.map((row) => [row.event_id, row.made]));
  return events.map((e) => made.get(e.id) ?? null);
}
