import type { Queryable } from '@acs/db';
import type { RateLimits } from '@acs/contracts';
import type { ApiKey } from '../domain/api-key.js';

/** What PostgreSQL hands back in another type than the domain's: bigint columns arrive as strings. */
type ApiKeyRow = Omit<ApiKey, 'ownerUserId' | 'version'> & { ownerUserId: number | string | null; version: number | string };

/**
 * Each column under the name of the ApiKey field it fills, so a row is the domain's object but
 * for the bigint columns and the mapper below converts only those (a new column is one entry here).
 */
const COLUMNS = [
  'id, key, secret_hash AS "secretHash", name, scopes, owner_user_id AS "ownerUserId", environment',
  'created_at AS "createdAt", updated_at AS "updatedAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt", version',
  'rate_limits AS "rateLimits", expires_at AS "expiresAt", previous_secret_hash AS "previousSecretHash"',
  'previous_secret_ends_at AS "previousSecretEndsAt", revoked_reason AS "revokedReason", exposed_at AS "exposedAt"',
  'ip_allow_list AS "ipAllowList"',
].join(', ');

function fromRow(row: ApiKeyRow): ApiKey {
  return { ...row, ownerUserId: row.ownerUserId === null ? null : Number(row.ownerUserId), version: Number(row.version) };
}

/** What a new key is stored with; the database fills in the id, the timestamps and the version. */
export type NewApiKey = Pick<ApiKey, 'key' | 'secretHash' | 'name' | 'scopes' | 'ownerUserId' | 'environment'> &
  Partial<Pick<ApiKey, 'rateLimits' | 'expiresAt' | 'ipAllowList'>>;

export async function insertApiKey(db: Queryable, input: NewApiKey): Promise<ApiKey> {
  const { rows } = await db.query<ApiKeyRow>(
    `INSERT INTO api_keys (key, secret_hash, name, scopes, owner_user_id, environment, rate_limits, expires_at, ip_allow_list)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9) RETURNING ${COLUMNS}`,
    [
      input.key,
      input.secretHash,
      input.name,
      input.scopes,
      input.ownerUserId,
      input.environment,
      input.rateLimits ? JSON.stringify(input.rateLimits) : null,
      input.expiresAt ?? null,
      input.ipAllowList ?? null,
    ],
  );
  return fromRow(rows[0]!);
}

/**
 * Creates or replaces a key by its value (start-up seeds). A revoked key is left exactly as it is
 * and null is returned: revocation is final, a restart must never bring a leaked key back.
 */
export async function upsertUnrevokedApiKey(db: Queryable, input: NewApiKey): Promise<ApiKey | null> {
  const { rows } = await db.query<ApiKeyRow>(
    `INSERT INTO api_keys (key, secret_hash, name, scopes, owner_user_id, environment, seeded_secret_hash)
     VALUES ($1, $2, $3, $4, $5, $6, $2)
     ON CONFLICT (key) DO UPDATE SET secret_hash = EXCLUDED.secret_hash, name = EXCLUDED.name, scopes = EXCLUDED.scopes,
       seeded_secret_hash = EXCLUDED.secret_hash,
       owner_user_id = EXCLUDED.owner_user_id, updated_at = now(), version = api_keys.version + 1
     WHERE api_keys.revoked_at IS NULL
     RETURNING ${COLUMNS}`,
    [input.key, input.secretHash, input.name, input.scopes, input.ownerUserId, input.environment],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/**
 * Was this key's secret changed since a seed last set it (a roll, by the CLI or the API)? A key seeded before
 * seeded_secret_hash existed counts as rolled while it still has a replaced secret in grace.
 */
export async function seedKeyWasRolled(db: Queryable, key: string): Promise<boolean> {
  const { rows } = await db.query<{ rolled: boolean }>(
    `SELECT CASE WHEN seeded_secret_hash IS NULL THEN previous_secret_hash IS NOT NULL
                 ELSE secret_hash IS DISTINCT FROM seeded_secret_hash END AS rolled
       FROM api_keys WHERE key = $1 AND revoked_at IS NULL`,
    [key],
  );
  return rows[0]?.rolled === true;
}

export async function findApiKeyByKey(db: Queryable, key: string): Promise<ApiKey | null> {
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE key = $1`, [key]);
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function findApiKeyById(db: Queryable, id: string): Promise<ApiKey | null> {
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Reads the given keys and holds their row locks until the transaction ends (in id order: no deadlock with the usage batches). */
export async function lockApiKeys(db: Queryable, ids: readonly string[]): Promise<ApiKey[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, [ids]);
  return rows.map(fromRow);
}

export async function listApiKeys(db: Queryable, filter: { ownerUserId?: number | null }): Promise<ApiKey[]> {
  if (filter.ownerUserId === undefined) {
    const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at DESC, id`);
    return rows.map(fromRow);
  }
  const { rows } = await db.query<ApiKeyRow>(
    `SELECT ${COLUMNS} FROM api_keys WHERE owner_user_id IS NOT DISTINCT FROM $1 ORDER BY created_at DESC, id`,
    [filter.ownerUserId],
  );
  return rows.map(fromRow);
}

/** `rateLimits`, `ipAllowList`: undefined leaves them, null clears them (the gateway's default; any address). */
export async function updateApiKey(
  db: Queryable,
  id: string,
  changes: { scopes?: string[]; name?: string; revoke?: boolean; rateLimits?: RateLimits | null; ipAllowList?: string[] | null },
): Promise<ApiKey | null> {
  const { rows } = await db.query<ApiKeyRow>(
    `UPDATE api_keys SET
       scopes = COALESCE($2, scopes),
       name = COALESCE($3, name),
       revoked_at = CASE WHEN $4::boolean THEN COALESCE(revoked_at, now()) ELSE revoked_at END,
       rate_limits = CASE WHEN $5::boolean THEN $6::jsonb ELSE rate_limits END,
       ip_allow_list = CASE WHEN $7::boolean THEN $8::text[] ELSE ip_allow_list END,
       updated_at = now(),
       version = version + 1
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [
      id,
      changes.scopes ?? null,
      changes.name ?? null,
      changes.revoke ?? false,
      changes.rateLimits !== undefined,
      changes.rateLimits ? JSON.stringify(changes.rateLimits) : null,
      changes.ipAllowList !== undefined,
      changes.ipAllowList ?? null,
    ],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/**
 * A new secret for a key: the current hash becomes the previous one until `previousEndsAt` (null: no grace,
 * the current secret stops at once). A previous secret still in its grace period is dropped: at most two work.
 */
export async function replaceSecretHash(
  db: Queryable,
  id: string,
  secretHash: string,
  previousEndsAt: Date | null,
): Promise<ApiKey | null> {
  const { rows } = await db.query<ApiKeyRow>(
    `UPDATE api_keys SET
       previous_secret_hash = CASE WHEN $3::timestamptz IS NULL THEN NULL ELSE secret_hash END,
       previous_secret_ends_at = $3::timestamptz,
       secret_hash = $2,
       updated_at = now(),
       version = version + 1
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, secretHash, previousEndsAt],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Is there a usable key that holds the given scope and belongs to no user? */
export async function hasActiveSystemKey(db: Queryable, scope: string): Promise<boolean> {
  const { rows } = await db.query<{ found: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM api_keys WHERE owner_user_id IS NULL AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) AND $1 = ANY(scopes)) AS found`,
    [scope],
  );
  return rows[0]?.found === true;
}

/** Serializes key creation per user, so the per-user limit holds under concurrent requests. */
export async function lockOwnerKeys(db: Queryable, ownerUserId: number): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`api_keys:owner:${ownerUserId}`]);
}

export async function countActiveKeysOfOwner(db: Queryable, ownerUserId: number): Promise<number> {
  const { rows } = await db.query<{ count: number | string }>(
    'SELECT count(*) AS count FROM api_keys WHERE owner_user_id = $1 AND revoked_at IS NULL',
    [ownerUserId],
  );
  return Number(rows[0]?.count ?? 0);
}

/** Reads a key and holds its row lock until the transaction ends. */
export async function lockApiKey(db: Queryable, id: string): Promise<ApiKey | null> {
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1 FOR UPDATE`, [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Batched lastUsedAt from the gateways; only moves forward, and changes no version (the cache projection has no dates). */
export async function recordKeyUsage(db: Queryable, usage: readonly { keyId: string; lastUsedAt: number }[]): Promise<number> {
  if (usage.length === 0) return 0;
  // Rows locked in id order first: two gateways' batches (each in one transaction with its counts) never deadlock.
  const { rowCount } = await db.query(
    `WITH u AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS u("keyId" uuid, "lastUsedAt" bigint)),
     locked AS (
       SELECT k.id, to_timestamp(u."lastUsedAt") AS at FROM api_keys k JOIN u ON k.id = u."keyId"
        WHERE k.last_used_at IS NULL OR k.last_used_at < to_timestamp(u."lastUsedAt")
        ORDER BY k.id FOR NO KEY UPDATE OF k)
     UPDATE api_keys AS k SET last_used_at = locked.at FROM locked WHERE k.id = locked.id AND (k.last_used_at IS NULL OR k.last_used_at < locked.at)`,
    [JSON.stringify(usage)],
  );
  return rowCount;
}

/** The keys whose current or replaced secret has one of these hashes (a leak report names secrets, not keys). */
export async function findKeyIdsBySecretHashes(db: Queryable, hashes: readonly string[]): Promise<{ id: string; hash: string }[]> {
  const { rows } = await db.query<{ id: string; hash: string }>(
    `SELECT id, secret_hash AS hash FROM api_keys WHERE secret_hash = ANY($1::text[])
     UNION SELECT id, previous_secret_hash AS hash FROM api_keys WHERE previous_secret_hash = ANY($1::text[])`,
    [hashes],
  );
  return rows;
}

/**
 * A key whose secret leaked: revoked now (reason `exposed`, unless it was revoked before, whose time and reason
 * stay), exposed_at set once, and a replaced secret in its grace period stops too. The version moves on, so the
 * write-through replaces every gateway's record.
 */
export async function markKeyExposed(db: Queryable, id: string): Promise<ApiKey | null> {
  const { rows } = await db.query<ApiKeyRow>(
    `UPDATE api_keys SET
       revoked_reason = CASE WHEN revoked_at IS NULL THEN 'exposed' ELSE revoked_reason END,
       revoked_at = COALESCE(revoked_at, now()),
       exposed_at = COALESCE(exposed_at, now()),
       previous_secret_hash = NULL,
       previous_secret_ends_at = NULL,
       updated_at = now(),
       version = version + 1
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}
