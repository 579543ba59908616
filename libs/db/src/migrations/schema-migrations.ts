import type { Queryable } from '../db.js';

/**
 * Key of the session advisory lock around a migration run. Fixed, because every replica of a
 * service must pick the same one; advisory locks are per database, so services sharing one
 * server do not wait for each other. (The value is arbitrary: "acsmig" in ASCII.)
 */
export const MIGRATION_LOCK_KEY = 0x6163_736d_6967;

export const CREATE_TABLE_SQL = `CREATE TABLE IF NOT EXISTS schema_migrations (
  name text PRIMARY KEY,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

export const RECORD_SQL = 'INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)';

/** name → checksum of what was applied; empty when the table does not exist yet. */
export async function appliedMigrations(db: Queryable): Promise<Map<string, string>> {
  const {
    rows: [table],
  } = await db.query<{ present: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS present");
  if (!table?.present) return new Map();
  const { rows } = await db.query<{ name: string; checksum: string }>('SELECT name, checksum FROM schema_migrations');
  return new Map(rows.map((row) => [row.name, row.checksum]));
}
