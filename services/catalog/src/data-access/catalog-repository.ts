import type { Queryable } from '@acs/db';
import type { CatalogEntry, CatalogEntryInput } from '@acs/contracts';

/** A row as selected: the entry's own fields, but for the numeric price, which PostgreSQL hands back as a string. */
type CatalogRow = Omit<CatalogEntry, 'price'> & { price: string | number };

/** Each column under the name of the entry's field it fills, so the mapper converts only the price. */
const COLUMNS = 'id, type, brand, model, price, currency, release_year AS "releaseYear", specs';

function fromRow(row: CatalogRow): CatalogEntry {
  return { ...row, price: Number(row.price) } as CatalogEntry;
}

export interface CatalogFilter {
  brand?: string;
  type?: CatalogEntry['type'];
  /** Search text: a case-insensitive substring of "<brand> <model>". */
  q?: string;
}

/** `q` as a LIKE pattern: its own %, _ and \\ match themselves (backslash is LIKE's escape). */
const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The WHERE conditions of a filter, numbered from $1. Each one has an index: the brand the
 * (lower(brand), id) index, the type the (type, id) index, q the trigram index of migration 004
 * (where pg_trgm exists) on the very expression written here.
 */
function filterConditions(filter: CatalogFilter): { conditions: string[]; values: unknown[] } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  if (filter.brand !== undefined) {
    values.push(filter.brand);
    conditions.push(`lower(brand) = lower($${values.length})`);
  }
  if (filter.type !== undefined) {
    values.push(filter.type);
    conditions.push(`type = $${values.length}`);
  }
  if (filter.q !== undefined) {
    values.push(containsPattern(filter.q));
    conditions.push(`lower(brand || ' ' || model) LIKE lower($${values.length})`);
  }
  return { conditions, values };
}

/**
 * Up to `limit` entries in id order, after `afterId` (keyset: the index starts right there, so
 * any position costs the same) and then past `offset` more (the spec's `page`: PostgreSQL reads
 * and drops every skipped row).
 */
export async function findCatalogPage(
  db: Queryable,
  filter: CatalogFilter,
  limit: number,
  position: { afterId: number; offset: number },
): Promise<CatalogEntry[]> {
  const { conditions, values } = filterConditions(filter);
  values.push(position.afterId, limit, position.offset);
  const n = values.length;
  conditions.push(`id > $${n - 2}`);
  const { rows } = await db.query<CatalogRow>(
    `SELECT ${COLUMNS} FROM catalog_entries WHERE ${conditions.join(' AND ')} ORDER BY id LIMIT $${n - 1} OFFSET $${n}`,
    values,
  );
  return rows.map(fromRow);
}

/**
 * Exact totals. Brand and type are kept by triggers (migrations 001 and 004), so they cost one
 * index lookup; a search is counted for real (the caller runs it as an expensive request).
 */
export async function countCatalogEntries(db: Queryable, filter: CatalogFilter): Promise<number> {
  const { rows } = await countQuery(db, filter);
  return rows[0] ? Number(rows[0].entries) : 0;
}

/** A search counts its matches; otherwise the trigger-kept totals (per type and brand, or per brand) answer. */
function countQuery(db: Queryable, filter: CatalogFilter) {
  if (filter.q !== undefined) {
    const { conditions, values } = filterConditions(filter);
    return db.query<{ entries: string | number }>(
      `SELECT count(*) AS entries FROM catalog_entries WHERE ${conditions.join(' AND ')}`,
      values,
    );
  }
  if (filter.type !== undefined) {
    return db.query<{ entries: string | number }>('SELECT entries FROM catalog_type_counts WHERE type = $1 AND brand_key = lower($2)', [
      filter.type,
      filter.brand ?? '',
    ]);
  }
  return db.query<{ entries: string | number }>('SELECT entries FROM catalog_counts WHERE brand_key = lower($1)', [filter.brand ?? '']);
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
  await db.query('INSERT INTO catalog_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value', [
    name,
    value,
  ]);
}

/** Summaries of the entries with these ids that exist (missing ids are simply absent). */
export async function findSummaries(
  db: Queryable,
  ids: readonly number[],
): Promise<{ id: number; type: CatalogEntry['type']; brand: string; model: string }[]> {
  const { rows } = await db.query<{ id: number; type: CatalogEntry['type']; brand: string; model: string }>(
    'SELECT id, type, brand, model FROM catalog_entries WHERE id = ANY($1::int[]) ORDER BY id',
    [ids],
  );
  return rows;
}
