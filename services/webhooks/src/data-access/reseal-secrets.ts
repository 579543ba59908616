import type { Db, Queryable } from '@acs/db';
import { secretBox, type SecretBox } from '../domain/secret-box.js';

/**
 * The second half of a WEBHOOKS_SECRET_KEY rotation (docs/security.md): every endpoint's boxes
 * (`secret_box`, `previous_secret_box`) sealed again under the current key, so that the previous
 * key can be dropped. Batches of rows, each its own short transaction that locks its rows (a
 * RotateSecret on one of them waits, rather than being overwritten), walked by id.
 */

export interface ResealKeys {
  /** WEBHOOKS_SECRET_KEY: the key every box ends up under. */
  current: string;
  /** WEBHOOKS_SECRET_KEY_PREVIOUS: what boxes not yet resealed were sealed with. */
  previous: readonly string[];
}

export interface ResealCounts {
  /** Rows with at least one box sealed again, or an expired previous box dropped. */
  resealed: number;
  /** Rows whose boxes all opened under the current key alone: left as they are. */
  alreadyCurrent: number;
  /** Rows with a box that fits none of the keys: left as they are, by id. */
  unreadable: string[];
}

export interface ResealOptions {
  /** Rows per transaction (default 500). */
  batchSize?: number;
  /** Called after each committed batch with the totals so far. */
  onBatch?(counts: ResealCounts): void;
}

interface BoxRow {
  id: string;
  secret_box: string;
  previous_secret_box: string | null;
  /** Its 24 h of signing beside the new secret are over (by the database's clock): it is never used again. */
  previous_expired: boolean;
}

/** What one row needs: nothing, new boxes, or nothing it can have (a box no key opens). */
type Verdict = 'current' | 'unreadable' | { secretBox: string; previousSecretBox: string | null };

/** The box under the current key: itself when it is already, a new one, or null when no key opens it. */
function boxUnderCurrentKey(box: string, currentOnly: SecretBox, anyKey: SecretBox): string | null {
  if (currentOnly.tryOpen(box) !== null) return box;
  const plain = anyKey.tryOpen(box);
  return plain === null ? null : anyKey.seal(plain);
}

function verdictOf(row: BoxRow, currentOnly: SecretBox, anyKey: SecretBox): Verdict {
  const current = boxUnderCurrentKey(row.secret_box, currentOnly, anyKey);
  // An expired previous box is dropped, not resealed: readable or not, nothing signs with it any more.
  const kept = row.previous_expired ? null : row.previous_secret_box;
  const previous = kept === null ? null : boxUnderCurrentKey(kept, currentOnly, anyKey);
  if (current === null || (kept !== null && previous === null)) return 'unreadable';
  if (current === row.secret_box && previous === row.previous_secret_box) return 'current';
  return { secretBox: current, previousSecretBox: previous };
}

/** One batch after `afterId`: its rows locked, the changed ones written in one statement. */
async function resealBatch(
  tx: Queryable,
  afterId: string | null,
  batchSize: number,
  boxes: { currentOnly: SecretBox; anyKey: SecretBox },
  counts: ResealCounts,
): Promise<string | null> {
  const { rows } = await tx.query<BoxRow>(
    `SELECT id, secret_box, previous_secret_box, coalesce(previous_secret_ends_at <= now(), false) AS previous_expired FROM endpoints
     WHERE ($1::uuid IS NULL OR id > $1::uuid) ORDER BY id LIMIT $2 FOR UPDATE`,
    [afterId, batchSize],
  );
  const changed: { id: string; secretBox: string; previousSecretBox: string | null }[] = [];
  for (const row of rows) {
    const verdict = verdictOf(row, boxes.currentOnly, boxes.anyKey);
    if (verdict === 'current') counts.alreadyCurrent += 1;
    else if (verdict === 'unreadable') counts.unreadable.push(row.id);
    else changed.push({ id: row.id, ...verdict });
  }
  if (changed.length > 0) {
    // updated_at stays: the endpoint is what it was, only its encryption at rest changed.
    await tx.query(
      `UPDATE endpoints e SET secret_box = u.secret_box, previous_secret_box = u.previous_secret_box,
         previous_secret_ends_at = CASE WHEN u.previous_secret_box IS NULL THEN NULL ELSE e.previous_secret_ends_at END
       FROM unnest($1::uuid[], $2::text[], $3::text[]) AS u(id, secret_box, previous_secret_box)
       WHERE e.id = u.id`,
      [changed.map((c) => c.id), changed.map((c) => c.secretBox), changed.map((c) => c.previousSecretBox)],
    );
    counts.resealed += changed.length;
  }
  return rows.length < batchSize ? null : rows[rows.length - 1]!.id;
}

/** Seals every endpoint's secrets under `keys.current`, reading them under it or `keys.previous`. Idempotent. */
export async function resealSecrets(db: Db, keys: ResealKeys, options: ResealOptions = {}): Promise<ResealCounts> {
  const batchSize = options.batchSize ?? 500;
  const boxes = { currentOnly: secretBox(keys.current), anyKey: secretBox(keys.current, keys.previous) };
  const counts: ResealCounts = { resealed: 0, alreadyCurrent: 0, unreadable: [] };
  let afterId: string | null = null;
  do {
    const from: string | null = afterId;
    // Counted into a copy: a batch that rolls back must not leave its rows in the totals.
    const batch: ResealCounts = { ...counts, unreadable: [...counts.unreadable] };
    afterId = await db.transaction((tx) => resealBatch(tx, from, batchSize, boxes, batch));
    Object.assign(counts, batch);
    options.onBatch?.(counts);
  } while (afterId !== null);
  return counts;
}
