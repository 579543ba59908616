import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { keptCount, realCount, startCatalog, type CatalogHarness } from './harness.js';

let catalog: CatalogHarness;
const ROWS = 20_000;
const BRANDS = 200;

beforeAll(async () => {
  catalog = await startCatalog({ seed: false });
  await catalog.db.query(
    `INSERT INTO catalog_entries (type, brand, model, price, release_year, specs)
     SELECT 'dac', 'Plan Brand ' || (i % ${BRANDS}), 'Model ' || i, (i % 1000) + 0.99, 2000 + (i % 25),
            '{"chip":"ESS ES9018K2M","maxSampleRateHz":192000,"maxBitDepth":24,"dsd":null,"inputs":["usb"],"outputs":["rca"]}'::jsonb
       FROM generate_series(1, ${ROWS}) AS i`,
  );
  await catalog.db.query('ANALYZE catalog_entries');
}, 60_000);

afterAll(async () => {
  await catalog?.stop();
});

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function indexesUsed(node: PlanNode): string[] {
  return [...(node['Index Name'] ? [node['Index Name']] : []), ...(node.Plans ?? []).flatMap(indexesUsed)];
}

async function plan(sql: string, params: unknown[]): Promise<PlanNode> {
  const { rows } = await catalog.db.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
  return rows[0]!['QUERY PLAN'][0]!.Plan;
}

// The statement the repository runs for a brand-filtered page (data-access/catalog-repository.ts).
const BRAND_PAGE_SQL =
  'SELECT id, type, brand, model, price, currency, release_year, specs FROM catalog_entries WHERE lower(brand) = lower($1) ORDER BY id LIMIT $2 OFFSET $3';

describe('the brand-filtered page query at 20k rows', () => {
  it('has exact counts after one big insert statement', async () => {
    expect(await keptCount(catalog.db)).toBe(ROWS);
    expect(await keptCount(catalog.db, 'Plan Brand 7')).toBe(ROWS / BRANDS);
    expect(await realCount(catalog.db)).toBe(ROWS);
  });

  it('uses catalog_entries_brand_idx for the first and for a later page', async () => {
    for (const [limit, offset] of [
      [20, 0],
      [20, 60],
    ]) {
      const root = await plan(BRAND_PAGE_SQL, ['plan brand 7', limit, offset]);
      expect(indexesUsed(root)).toContain('catalog_entries_brand_idx');
      expect(JSON.stringify(root)).not.toContain('"Seq Scan"');
    }
  });

  it('needs no sort: the index already returns the rows in id order', async () => {
    const root = await plan(BRAND_PAGE_SQL, ['PLAN BRAND 7', 20, 0]);
    expect(JSON.stringify(root)).not.toContain('"Sort"');
  });

  it('serves the filtered pages through the API with the right totals', async () => {
    const response = await catalog.get('/api/Dac?brand=plan%20brand%207&pageSize=100&page=2');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { items: Array<{ id: number; brand: string }>; total: number; totalPages: number };
    expect(body.total).toBe(ROWS / BRANDS);
    expect(body.totalPages).toBe(1);
    expect(body.items).toEqual([]);
    const first = (await (await catalog.get('/api/Dac?brand=plan%20brand%207&pageSize=100')).json()) as typeof body;
    expect(first.items).toHaveLength(ROWS / BRANDS);
    expect(first.items.every((item) => item.brand === 'Plan Brand 7')).toBe(true);
  });
});
