import { type Db, type Queryable, jsonbParameter } from '@acs/db';
import type { AuditActor, AuditChange, AuditEntry, ActorType } from './audit-entry.js';
import { GENESIS_HASH, entryHash, scalarFields } from './audit-hash.js';
import type { AuditTable } from './audit-table.js';

const COLUMNS =
  'id, occurred_at, actor_type, actor_id, request_id, client_address, action, target_type, target_id, user_id, before, after, prev_hash, hash, erased';

interface Row {
  id: number | string;
  occurred_at: Date;
  actor_type: ActorType;
  actor_id: string | null;
  request_id: string | null;
  client_address: string | null;
  action: string;
  target_type: string;
  target_id: string;
  user_id: number | string | null;
  before: Record<string, unknown> | string | null;
  after: Record<string, unknown> | string | null;
  prev_hash: string;
  hash: string;
  erased: boolean;
}

const json = (value: Record<string, unknown> | string | null): Record<string, unknown> | null =>
  typeof value === 'string' ? (JSON.parse(value) as Record<string, unknown>) : value;

function toEntry(table: AuditTable, row: Row): AuditEntry {
  return {
    id: Number(row.id),
    service: table.service,
    occurredAt: row.occurred_at,
    actor: { type: row.actor_type, id: row.actor_id, requestId: row.request_id, clientAddress: row.client_address },
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    userId: row.user_id === null ? null : Number(row.user_id),
    before: json(row.before),
    after: json(row.after),
    prevHash: row.prev_hash,
    hash: row.hash,
    erased: row.erased,
  };
}

/**
 * Takes the trail's lock for the rest of the caller's transaction, then reads the hash the next entry
 * links to (the genesis hash on an empty trail): appends of one service form one line.
 */
async function lockedChainEnd(tx: Queryable, table: AuditTable): Promise<string> {
  await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [table.lockKey]);
  const { rows } = await tx.query<{ hash: string }>(`SELECT hash FROM ${table.name} ORDER BY id DESC LIMIT 1`);
  return rows[0]?.hash ?? GENESIS_HASH;
}

/**
 * Appends one entry inside the caller's transaction (the change and its entry commit together).
 * The table's advisory lock is held until that transaction ends, so appends are one at a time and
 * each links to the entry committed before it.
 */
export async function appendAudit(
  tx: Queryable,
  table: AuditTable,
  actor: AuditActor,
  change: AuditChange,
): Promise<{ id: number; occurredAt: Date }> {
  const prevHash = await lockedChainEnd(tx, table);
  // Milliseconds, as a JS Date holds them: the stored instant reads back exactly, so the hash does too.
  const occurredAt = new Date();
  const hash = entryHash(prevHash, { occurredAt, actor, change });
  const inserted = await tx.query<{ id: number | string }>(
    `INSERT INTO ${table.name} (occurred_at, actor_type, actor_id, request_id, client_address, action, target_type, target_id, user_id, before, after, prev_hash, hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12, $13) RETURNING id`,
    [occurredAt, ...scalarFields(actor, change), jsonbParameter(change.before), jsonbParameter(change.after), prevHash, hash],
  );
  return { id: Number(inserted.rows[0]!.id), occurredAt };
}

/** The columns of an INSERT of many entries, one array each, from `unnest` in the entries' order. */
const MANY_COLUMNS_SQL = `SELECT occurred_at, actor_type, actor_id, request_id, client_address, action, target_type, target_id, user_id,
    before, after, prev_hash, hash
  FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[],
    $10::jsonb[], $11::jsonb[], $12::text[], $13::text[])
    WITH ORDINALITY AS e (occurred_at, actor_type, actor_id, request_id, client_address, action, target_type, target_id, user_id,
      before, after, prev_hash, hash, ord)
  ORDER BY ord`;

/**
 * Appends several entries, in the order given, inside the caller's transaction: one lock, one read
 * of the chain's end and one INSERT for all of them, so a group of changes committing together
 * (identity's sign-ins) holds the lock for a few round trips instead of a few per entry. The rows
 * get ascending ids in the order given (INSERT ... SELECT ... ORDER BY), which is the chain's order.
 */
export async function appendAuditMany(
  tx: Queryable,
  table: AuditTable,
  entries: readonly { actor: AuditActor; change: AuditChange }[],
): Promise<{ id: number; occurredAt: Date }[]> {
  if (entries.length === 0) return [];
  let prevHash = await lockedChainEnd(tx, table);
  const occurredAt = new Date();
  const columns: unknown[][] = Array.from({ length: 13 }, () => []);
  for (const { actor, change } of entries) {
    const hash = entryHash(prevHash, { occurredAt, actor, change });
    const values = [occurredAt.toISOString(), ...scalarFields(actor, change), jsonbParameter(change.before), jsonbParameter(change.after)];
    for (const [i, value] of [...values, prevHash, hash].entries()) columns[i]!.push(value);
    prevHash = hash;
  }
  const inserted = await tx.query<{ id: number | string }>(
    `INSERT INTO ${table.name} (occurred_at, actor_type, actor_id, request_id, client_address, action, target_type, target_id, user_id, before, after, prev_hash, hash)
     ${MANY_COLUMNS_SQL} RETURNING id`,
    columns,
  );
  const ids = inserted.rows.map((row) => Number(row.id)).sort((a, b) => a - b);
  return ids.map((id) => ({ id, occurredAt }));
}

export interface AuditFilter {
  userId?: number;
  /** Entries of the user's trail or made by the user (an erasure reads both). */
  userOrActor?: number;
  action?: string;
  targetType?: string;
  targetId?: string;
  /** Entries with a smaller id only (the cursor of the page before). */
  beforeId?: number;
  /** Entries with a larger id only (verify and export walk forward). */
  afterId?: number;
  limit: number;
  order: 'newest' | 'oldest';
}

/** A page of entries; every filter is a parameter, and (user_id, id) is indexed. */
export async function listAudit(db: Queryable, table: AuditTable, filter: AuditFilter): Promise<AuditEntry[]> {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    values.push(value);
    where.push(sql.replace('?', `$${values.length}`));
  };
  if (filter.userId !== undefined) add('user_id = ?', filter.userId);
  if (filter.userOrActor !== undefined) {
    values.push(filter.userOrActor, String(filter.userOrActor));
    where.push(`(user_id = $${values.length - 1} OR (actor_type = 'user' AND actor_id = $${values.length}))`);
  }
  if (filter.action !== undefined) add('action = ?', filter.action);
  if (filter.targetType !== undefined) add('target_type = ?', filter.targetType);
  if (filter.targetId !== undefined) add('target_id = ?', filter.targetId);
  if (filter.beforeId !== undefined) add('id < ?', filter.beforeId);
  if (filter.afterId !== undefined) add('id > ?', filter.afterId);
  values.push(filter.limit);
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM ${table.name} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY id ${filter.order === 'newest' ? 'DESC' : 'ASC'} LIMIT $${values.length}`,
    values,
  );
  return rows.map((row) => toEntry(table, row));
}

/**
 * Retention: deletes entries older than `days`. The table's trigger refuses every other DELETE;
 * this one announces itself with a transaction-local setting. The chain then starts at the oldest
 * kept entry, whose prev_hash verify takes as given.
 */
export function pruneAudit(db: Db, table: AuditTable, days: number): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT set_config('audit.pruning', 'on', true)");
    const { rowCount } = await tx.query(`DELETE FROM ${table.name} WHERE occurred_at < now() - make_interval(days => $1)`, [days]);
    return rowCount ?? 0;
  });
}
