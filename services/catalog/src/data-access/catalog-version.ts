import type { Queryable } from '@acs/db';

/** The catalog version (migration 003): one row of its own table, never catalog_entries. */
export async function readCatalogVersion(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ version: string | number }>('SELECT version FROM catalog_version');
  return Number(rows[0]!.version);
}
