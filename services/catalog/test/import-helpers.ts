import { signedFetch } from '@acs/testing';
import type { Db } from '@acs/db';
import { INTERNAL_SECRET, type CatalogHarness } from './harness.js';

export const ADMIN = { requestId: 'import-test', keyId: 'key-admin', scopes: ['write:devices'], userId: 1, role: 2 };
export const SUBSCRIBER = { ...ADMIN, userId: 2, role: 1 };

export interface ImportCountsBody {
  inserted: number;
  updated: number;
  total: number;
}

/** POST /api/Dac/import signed as the gateway would sign it for an Admin (or the given caller). */
export function postImport(
  catalog: CatalogHarness,
  body: unknown,
  options: { query?: string; context?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Promise<Response> {
  return signedFetch(catalog.url, INTERNAL_SECRET, 'POST', `/api/Dac/import${options.query ?? ''}`, {
    body,
    context: options.context ?? ADMIN,
    ...(options.headers ? { headers: options.headers } : {}),
  });
}

/** Every row of the table, as comparable text (to prove nothing changed). */
export async function snapshot(db: Db): Promise<string> {
  const { rows } = await db.query<{ t: string }>(`SELECT coalesce(string_agg(c::text, '|' ORDER BY id), '') AS t FROM catalog_entries c`);
  const { rows: counts } = await db.query<{ t: string }>(
    `SELECT coalesce(string_agg(k::text, '|' ORDER BY brand_key), '') AS t FROM catalog_counts k`,
  );
  return `${rows[0]!.t}#${counts[0]!.t}`;
}

/** Every trigger-kept counter equals a real count(*). */
export async function countsExact(db: Db): Promise<boolean> {
  const { rows: real } = await db.query<{ brand_key: string; entries: number }>(
    `SELECT lower(brand) AS brand_key, count(*)::int AS entries FROM catalog_entries GROUP BY 1
     UNION ALL SELECT '', count(*)::int FROM catalog_entries ORDER BY 1`,
  );
  const { rows: kept } = await db.query<{ brand_key: string; entries: number }>(
    `SELECT brand_key, entries::int AS entries FROM catalog_counts WHERE entries <> 0 OR brand_key = '' ORDER BY 1`,
  );
  return JSON.stringify(real) === JSON.stringify(kept);
}
