import type { Queryable } from '@acs/db';

export type ExpiryReminderKind = 'expiring_30' | 'expiring_7' | 'expiring_1' | 'expired';

/** A reminder this call claimed: its row is written, its event is for the caller to record in the same transaction. */
export interface ClaimedReminder {
  keyId: string;
  kind: ExpiryReminderKind;
  expiresAt: Date;
  eventId: string;
}

/** Lock key of the sweep ('kexp'): one replica sweeps at a time; the others skip their pass. */
const SWEEP_LOCK_KEY = 0x6b657870;

/** Takes the sweep's lock for the caller's transaction, or answers false at once when another replica holds it. */
export async function tryLockExpirySweep(tx: Queryable): Promise<boolean> {
  const { rows } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1::bigint) AS locked', [SWEEP_LOCK_KEY]);
  return rows[0]?.locked === true;
}

/**
 * Claims up to `limit` reminders that are due at `now` and not yet recorded: for each unrevoked key
 * whose expiry is at most 30 days ahead, only the nearest threshold it has reached (a key created 6
 * days before its expiry gets the 7-day reminder, not the 30-day one too), or `expired` once the
 * expiry has passed, for keys that expired within `lookbackDays` (a first start does not announce
 * keys that expired long ago). ON CONFLICT makes a reminder once per key, kind and expiry date even
 * when another transaction claims it at the same moment.
 */
export async function claimDueReminders(tx: Queryable, now: Date, lookbackDays: number, limit: number): Promise<ClaimedReminder[]> {
  const { rows } = await tx.query<{ key_id: string; kind: ExpiryReminderKind; expires_at: Date; event_id: string }>(
    `WITH due AS (
       SELECT k.id, k.expires_at,
              CASE WHEN k.expires_at <= $1::timestamptz THEN 'expired'
                   WHEN k.expires_at <= $1::timestamptz + interval '1 day' THEN 'expiring_1'
                   WHEN k.expires_at <= $1::timestamptz + interval '7 days' THEN 'expiring_7'
                   ELSE 'expiring_30' END AS kind
         FROM api_keys k
        WHERE k.revoked_at IS NULL
          AND k.expires_at IS NOT NULL
          AND k.expires_at <= $1::timestamptz + interval '30 days'
          AND k.expires_at > $1::timestamptz - make_interval(days => $2::int)
     ), pending AS (
       SELECT due.id, due.kind, due.expires_at FROM due
        WHERE NOT EXISTS (
          SELECT 1 FROM key_expiry_reminders r WHERE r.key_id = due.id AND r.kind = due.kind AND r.expires_at = due.expires_at)
        ORDER BY due.expires_at, due.id
        LIMIT $3
     )
     INSERT INTO key_expiry_reminders (key_id, kind, expires_at)
     SELECT id, kind, expires_at FROM pending
     ON CONFLICT DO NOTHING
     RETURNING key_id, kind, expires_at, event_id`,
    [now, lookbackDays, limit],
  );
  return rows.map((row) => ({ keyId: row.key_id, kind: row.kind, expiresAt: row.expires_at, eventId: row.event_id }));
}
