import type { Queryable } from '@acs/db';

/** What an attempt's outcome does to its delivery: delivered, retried after `retryInMs`, or failed (given up). */
export type Settlement = { kind: 'delivered' } | { kind: 'retry'; retryInMs: number } | { kind: 'failed'; disableReason: string };

/** One finished attempt, as the sender hands it over. */
export interface AttemptOutcome {
  deliveryId: string;
  claimToken: string;
  attempt: number;
  startedAt: Date;
  status: number | null;
  durationMs: number;
  error: string | null;
  settlement: Settlement;
}

/*
 * Many attempts in one statement (so one round trip and one commit): log each attempt of a
 * delivery that still exists (its endpoint may have been deleted meanwhile), settle each delivery
 * whose claim token is still the attempt's (a claim whose lease ended was taken over, and its late
 * outcome changes nothing), and disable the endpoints of the deliveries that gave up, keeping an
 * endpoint's first reason. All sub-statements see the same snapshot, and commit or fail together.
 */
const RECORD_OUTCOMES_SQL = `
WITH input AS (
  SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::timestamptz[], $5::int[], $6::int[], $7::text[], $8::text[],
    $9::bigint[], $10::text[])
    AS i (delivery_id, claim_token, attempt, started_at, status, duration_ms, error, outcome, retry_in_ms, disable_reason)
), logged AS (
  INSERT INTO delivery_attempts (delivery_id, attempt, started_at, status, duration_ms, error)
  SELECT i.delivery_id, i.attempt, i.started_at, i.status, i.duration_ms, i.error
  FROM input i JOIN deliveries d ON d.id = i.delivery_id
  ORDER BY i.delivery_id
), settled AS (
  UPDATE deliveries d SET
    status = i.outcome,
    next_attempt_at = CASE WHEN i.outcome = 'pending' THEN now() + i.retry_in_ms * interval '1 millisecond' END,
    retry_index = CASE WHEN i.outcome = 'pending' THEN d.retry_index + 1 ELSE d.retry_index END,
    delivered_at = CASE WHEN i.outcome = 'delivered' THEN now() ELSE d.delivered_at END,
    claim_token = NULL, last_status = i.status, last_duration_ms = i.duration_ms, last_error = i.error
  FROM input i
  WHERE d.id = i.delivery_id AND d.claim_token = i.claim_token
  RETURNING d.id, d.endpoint_id, d.status, i.disable_reason
), disabled AS (
  UPDATE endpoints e SET enabled = false, disabled_reason = s.disable_reason, disabled_at = now(), updated_at = now()
  FROM (SELECT DISTINCT ON (endpoint_id) endpoint_id, disable_reason FROM settled WHERE status = 'failed' ORDER BY endpoint_id) s
  WHERE e.id = s.endpoint_id AND e.enabled
)
SELECT id FROM settled`;

const outcomeColumn = (s: Settlement): string => (s.kind === 'retry' ? 'pending' : s.kind);

/**
 * Records finished attempts and settles their deliveries. Returns the ids of the deliveries whose
 * settlement applied (their claim was still current); the others were taken over or deleted.
 */
export async function recordOutcomes(db: Queryable, outcomes: readonly AttemptOutcome[]): Promise<Set<string>> {
  if (outcomes.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>(RECORD_OUTCOMES_SQL, [
    outcomes.map((o) => o.deliveryId),
    outcomes.map((o) => o.claimToken),
    outcomes.map((o) => o.attempt),
    outcomes.map((o) => o.startedAt.toISOString()),
    outcomes.map((o) => o.status),
    outcomes.map((o) => Math.round(o.durationMs)),
    outcomes.map((o) => o.error),
    outcomes.map((o) => outcomeColumn(o.settlement)),
    outcomes.map((o) => (o.settlement.kind === 'retry' ? Math.round(o.settlement.retryInMs) : 0)),
    outcomes.map((o) => (o.settlement.kind === 'failed' ? o.settlement.disableReason : null)),
  ]);
  return new Set(rows.map((row) => row.id));
}
