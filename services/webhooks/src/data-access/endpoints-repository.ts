import type { Queryable } from '@acs/db';

/** An endpoint row as stored; secrets are still sealed (domain/secret-box.ts). */
export interface EndpointRow {
  id: string;
  user_id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: Date | null;
  secret_box: string;
  previous_secret_box: string | null;
  previous_secret_ends_at: Date | null;
  created_at: Date;
}

const COLUMNS =
  'id, user_id, url, description, events, enabled, disabled_reason, disabled_at, secret_box, previous_secret_box, previous_secret_ends_at, created_at';

/** An id that is not a UUID is nobody's: answered like an unknown one, without asking PostgreSQL (which would reject the cast). */
export const isUuid = (id: string): boolean => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

export interface NewEndpoint {
  userId: number;
  url: string;
  description: string | null;
  events: string[];
  secretBox: string;
}

export async function insertEndpoint(db: Queryable, endpoint: NewEndpoint): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    `INSERT INTO endpoints (user_id, url, description, events, secret_box) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [endpoint.userId, endpoint.url, endpoint.description, endpoint.events, endpoint.secretBox],
  );
  return rows[0]!;
}

export async function countEndpoints(db: Queryable, userId: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM endpoints WHERE user_id = $1', [userId]);
  return rows[0]!.n;
}

export async function listEndpoints(db: Queryable, userId: number): Promise<EndpointRow[]> {
  const { rows } = await db.query<EndpointRow>(`SELECT ${COLUMNS} FROM endpoints WHERE user_id = $1 ORDER BY created_at DESC, id`, [
    userId,
  ]);
  return rows;
}

/** The user's endpoint `id`; null for an unknown id or someone else's (never told apart). `lock`: FOR UPDATE, inside a transaction. */
export async function findOwnEndpoint(db: Queryable, userId: number, id: string, lock = false): Promise<EndpointRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM endpoints WHERE id = $1 AND user_id = $2${lock ? ' FOR UPDATE' : ''}`,
    [id, userId],
  );
  return rows[0] ?? null;
}

export interface EndpointChange {
  url?: string;
  events?: string[];
  description?: string | null;
  /** true: enabled (the reason cleared); a string: disabled for that reason. */
  enabled?: true | string;
}

export async function updateEndpoint(db: Queryable, id: string, change: EndpointChange): Promise<EndpointRow> {
  const enabled = change.enabled === undefined ? null : change.enabled === true;
  const { rows } = await db.query<EndpointRow>(
    `UPDATE endpoints SET
       url = COALESCE($2, url),
       events = COALESCE($3, events),
       description = CASE WHEN $4::boolean THEN $5 ELSE description END,
       enabled = COALESCE($6, enabled),
       disabled_reason = CASE WHEN $6 IS NULL THEN disabled_reason WHEN $6 THEN NULL ELSE $7 END,
       disabled_at = CASE WHEN $6 IS NULL THEN disabled_at WHEN $6 THEN NULL ELSE COALESCE(disabled_at, now()) END,
       updated_at = now()
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [
      id,
      change.url ?? null,
      change.events ?? null,
      change.description !== undefined,
      change.description ?? null,
      enabled,
      typeof change.enabled === 'string' ? change.enabled : null,
    ],
  );
  return rows[0]!;
}

/** A new current secret; the one it replaces keeps signing until `previousEndsAt`. */
export async function replaceSecret(
  db: Queryable,
  id: string,
  secretBox: string,
  previousBox: string,
  previousEndsAt: Date,
): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    `UPDATE endpoints SET secret_box = $2, previous_secret_box = $3, previous_secret_ends_at = $4, updated_at = now()
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, secretBox, previousBox, previousEndsAt],
  );
  return rows[0]!;
}

export async function deleteEndpoint(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM endpoints WHERE id = $1', [id]);
}

/** Disables an endpoint whose deliveries gave up; an endpoint already disabled keeps its first reason. */
export async function disableEndpoint(db: Queryable, id: string, reason: string): Promise<void> {
  await db.query(
    `UPDATE endpoints SET enabled = false, disabled_reason = $2, disabled_at = now(), updated_at = now() WHERE id = $1 AND enabled`,
    [id, reason],
  );
}
