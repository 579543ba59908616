import type { Queryable } from '@acs/db';
import type { CatalogEntry, CatalogEntryInput } from '@acs/contracts';

interface CatalogRow {
  id: number;
  type: CatalogEntry['type'];
  brand: string;
  model: string;
  price: string | number;
  currency: string;
  release_year: number;
  specs: CatalogEntry['specs'];
}

const COLUMNS = 'id, type, brand, model, price, currency, release_year, specs';

function fromRow(row: CatalogRow): CatalogEntry {
  return {
    id: row.id,
    type: row.type,
    brand: row.brand,
    model: row.model,
    price: Number(row.price),
    currency: row.currency,
    releaseYear: row.release_year,
    specs: row.specs,
  } as CatalogEntry;
}

/**
 * Up to `limit` entries in id order, after `afterId` (keyset: the primary key or, with a brand,
 * the (lower(brand), id) index starts right there, so any position costs the same) and then past
 * `offset` more (the spec's `page`: PostgreSQL reads and drops every skipped row).
 */
export async function findCatalogPage(db: Queryable, filter: { brand?: string }, limit: number, position: { afterId: number; offset: number }): Promise<CatalogEntry[]> {
  const { rows } = filter.brand === undefined
    ? await db.query<CatalogRow>(`SELECT ${COLUMNS} FROM catalog_entries WHERE id > $1 ORDER BY id LIMIT $2 OFFSET $3`, [position.afterId, limit, position.offset])
    : await db.query<CatalogRow>(
      `SELECT ${COLUMNS} FROM catalog_entries WHERE lower(brand) = lower($1) AND id > $2 ORDER BY id LIMIT $3 OFFSET $4`,
      [filter.brand, position.afterId, limit, position.offset],
    );
  return rows.map(fromRow);
}

/** Exact counts kept by triggers (migration 001), so totals cost one index lookup. */
export async function countCatalogEntries(db: Queryable, filter: { brand?: string }): Promise<number> {
  const { rows } = await db.query<{ entries: string | number }>(`SELECT entries FROM catalog_counts WHERE brand_key = lower($1)`, [filter.brand ?? '']);
  return rows[0] ? Number(rows[0].entries) : 0;
}

/** Inserts entries that don't exist yet (by type, brand, model); returns how many were inserted. */
export async function insertMissingEntries(db: Queryable, entries: readonly CatalogEntryInput[]): Promise<number> {
  if (entries.length === 0) return 0;
  const { rowCount } = await db.query(
    `INSERT INTO catalog_entries (type, brand, model, price, currency, release_year, specs)
     SELECT e.type, e.brand, e.model, e.price, e.currency, e."releaseYear", e.specs
       FROM jsonb_to_recordset($1::jsonb) AS e(type text, brand text, model text, price numeric, currency text, "releaseYear" smallint, specs jsonb)
     ON CONFLICT (type, lower(brand), lower(model)) DO NOTHING`,
    [JSON.stringify(entries)],
  );
  return rowCount;
}

export async function readMeta(db: Queryable, name: string): Promise<string | null> {
  const { rows } = await db.query<{ value: string }>('SELECT value FROM catalog_meta WHERE name = $1', [name]);
  return rows[0]?.value ?? null;
}

export async function writeMeta(db: Queryable, name: string, value: string): Promise<void> {
  await db.query('INSERT INTO catalog_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value', [name, value]);
}

/** Summaries of the entries with these ids that exist (missing ids are simply absent). */
export async function findSummaries(db: Queryable, ids: readonly number[]): Promise<{ id: number; type: CatalogEntry['type']; brand: string; model: string }[]> {
  const { rows } = await db.query<{ id: number; type: CatalogEntry['type']; brand: string; model: string }>(
    'SELECT id, type, brand, model FROM catalog_entries WHERE id = ANY($1::int[]) ORDER BY id',
    [ids],
  );
  return rows;
}
