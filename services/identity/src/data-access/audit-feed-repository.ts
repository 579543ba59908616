import type { AuditLogResponseBody, AuditRecordedPayload } from '@acs/contracts';
import { type Queryable, jsonbParameter } from '@acs/db';

type FeedEntry = Omit<AuditRecordedPayload, 'eventId'>;

/**
 * Adds entries of users' trails in one statement (one entry, or a group of sign-ins). A redelivered
 * entry (same service and entry id) changes nothing, and so does one of a deleted account: the
 * deletion's own entry (its `before` still holds the e-mail address), billing's cancellation that
 * follows, and keys' revocations (a key's name, its allow-list) all come after the erasure emptied
 * the feed, and must not bring personal data back.
 *
 * The owners' rows are locked FOR SHARE, which waits for a deletion in flight (its UPDATE holds the
 * row): under READ COMMITTED the check would otherwise read the row as it was before that deletion
 * committed, and the entry would land after the erasure's DELETE had already run. A deletion that
 * starts after the lock waits in turn, and its DELETE then sees the entry.
 */
export async function insertFeedEntries(tx: Queryable, entries: readonly FeedEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await tx.query(
    `WITH owners AS (SELECT id, deleted_at FROM users WHERE id = ANY($8::bigint[]) FOR SHARE)
     INSERT INTO audit_feed (service, entry_id, occurred_at, actor, action, target_type, target_id, user_id, before, after)
     SELECT e.* FROM unnest($1::text[], $2::bigint[], $3::timestamptz[], $4::jsonb[], $5::text[], $6::text[], $7::text[], $8::bigint[],
       $9::jsonb[], $10::jsonb[]) AS e (service, entry_id, occurred_at, actor, action, target_type, target_id, user_id, before, after)
     WHERE NOT EXISTS (SELECT 1 FROM owners o WHERE o.id = e.user_id AND o.deleted_at IS NOT NULL)
     ON CONFLICT (service, entry_id) DO NOTHING`,
    [
      entries.map((e) => e.service),
      entries.map((e) => e.entryId),
      entries.map((e) => e.occurredAt),
      entries.map((e) => JSON.stringify(e.actor)),
      entries.map((e) => e.action),
      entries.map((e) => e.targetType),
      entries.map((e) => e.targetId),
      entries.map((e) => e.userId),
      entries.map((e) => jsonbParameter(e.before)),
      entries.map((e) => jsonbParameter(e.after)),
    ],
  );
}

/** One entry: insertFeedEntries' rules. */
export function insertFeedEntry(tx: Queryable, entry: FeedEntry): Promise<void> {
  return insertFeedEntries(tx, [entry]);
}

interface Row {
  id: number | string;
  service: string;
  occurred_at: Date;
  actor: AuditLogResponseBody['items'][number]['actor'];
  action: string;
  target_type: string;
  target_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** Retention for the feed, with the trail it copies (AUDIT_RETENTION_DAYS). */
export async function pruneFeed(db: Queryable, days: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM audit_feed WHERE occurred_at < now() - make_interval(days => $1)', [days]);
  return rowCount ?? 0;
}

export interface FeedQuery {
  userId: number;
  /** Entries after this one in newest-first order (the cursor: its time in ms and feed id). */
  after?: { occurredAtMs: number; id: number } | undefined;
  action?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  limit: number;
}

/** A user's entries, newest first by the time of the change, through (user_id, occurred_at, id); every filter a parameter. */
export async function listFeed(db: Queryable, query: FeedQuery): Promise<AuditLogResponseBody> {
  const { rows } = await db.query<Row>(
    `SELECT id, service, occurred_at, actor, action, target_type, target_id, before, after FROM audit_feed
     WHERE user_id = $1 AND ($2::timestamptz IS NULL OR (occurred_at, id) < ($2, $3)) AND ($4::text IS NULL OR action = $4)
       AND ($5::text IS NULL OR target_type = $5) AND ($6::text IS NULL OR target_id = $6)
     ORDER BY occurred_at DESC, id DESC LIMIT $7`,
    [
      query.userId,
      query.after ? new Date(query.after.occurredAtMs) : null,
      query.after?.id ?? null,
      query.action ?? null,
      query.targetType ?? null,
      query.targetId ?? null,
      query.limit + 1,
    ],
  );
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map((row) => ({
      service: row.service,
      occurredAt: row.occurred_at.toISOString(),
      actor: row.actor,
      action: row.action,
      targetType: row.target_type,
      targetId: row.target_id,
      before: row.before,
      after: row.after,
    })),
    nextCursor: rows.length > query.limit && last ? `${last.occurred_at.getTime()}_${last.id}` : null,
  };
}
