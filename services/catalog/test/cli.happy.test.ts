import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { buildEntry, realCount, startCatalog, uniqueBrand, type CatalogHarness, type CatalogPageBody } from './harness.js';
import { countsExact, snapshot } from './import-helpers.js';
import { buildCli, runCli } from './cli-harness.js';

let catalog: CatalogHarness;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  await buildCli();
  catalog = await startCatalog();
  dir = await mkdtemp(join(tmpdir(), 'catalog-cli-'));
  env = { CATALOG_DATABASE_URL: catalog.database.url };
}, 180_000);

afterAll(async () => {
  await catalog?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('npm run catalog -- import', () => {
  it('--help explains the command, the limits and the environment', async () => {
    const result = await runCli(['--help'], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/import FILE\.json \[--dry-run\]/);
    expect(result.stdout).toMatch(/20000 rows/);
    expect(result.stdout).toMatch(/CATALOG_DATABASE_URL/);
  });

  it('imports a small file, visible at once through the running service with exact totals', async () => {
    const brand = uniqueBrand('Cli');
    const path = await file('small.json', [buildEntry({ brand }), buildEntry({ brand }), buildEntry({ brand })]);
    const result = await runCli(['import', path], env);
    expect(result.stderr).toMatch(/imported 3\/3 rows \(100%\)/);
    expect(result.stdout).toMatch(/Imported 3 entries: 3 inserted, 0 updated\./);
    expect(result.code).toBe(0);
    const body = (await (await catalog.get(`/api/Dac?brand=${encodeURIComponent(brand)}`)).json()) as CatalogPageBody;
    expect(body.total).toBe(3);
    expect(await countsExact(catalog.db)).toBe(true);
  });

  it('--dry-run writes nothing and reports the counts; {"items": [...]} is accepted', async () => {
    const brand = uniqueBrand('CliDry');
    const existing = buildEntry({ brand });
    await runCli(['import', await file('one.json', [existing])], env);
    const path = await file('dry.json', { items: [{ ...existing, price: 9 }, buildEntry({ brand })] });
    const before = await snapshot(catalog.db);
    const result = await runCli(['import', path, '--dry-run'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Dry run: 2 entries valid; would insert 1 and update 1\. Nothing was written\./);
    expect(await snapshot(catalog.db)).toBe(before);
  });

  it('imports a file larger than one batch, with progress per batch, in one transaction', async () => {
    const brand = uniqueBrand('CliBig');
    const entries = Array.from({ length: 45_000 }, (_, i) => buildEntry({ brand, model: `Big ${i}` }));
    const total = await realCount(catalog.db);
    const result = await runCli(['import', await file('big.json', entries)], env);
    expect(result.code).toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([
      'imported 20000/45000 rows (44%)',
      'imported 40000/45000 rows (88%)',
      'imported 45000/45000 rows (100%)',
    ]);
    expect(await realCount(catalog.db)).toBe(total + 45_000);
    expect(await countsExact(catalog.db)).toBe(true);
  }, 120_000);

  it('a bad file prints each problem (row, field, message), exits 1 and writes nothing, even far past the first batch', async () => {
    const brand = uniqueBrand('CliBad');
    const entries: unknown[] = Array.from({ length: 25_000 }, (_, i) => buildEntry({ brand, model: `Row ${i}` }));
    entries[24_000] = { ...(entries[24_000] as object), releaseYear: 1800 };
    entries[24_001] = { ...(entries[24_001] as object), model: 'Row 5' };
    const before = await snapshot(catalog.db);
    const result = await runCli(['import', await file('bad.json', entries)], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/2 problem\(s\) in 2 of 25000 entries; nothing was written/);
    expect(result.stderr).toMatch(/row 24000 {2}releaseYear: /);
    expect(result.stderr).toMatch(/row 24001 {2}\(entry\): Same product as items\[5\]/);
    expect(result.stdout).toBe('');
    expect(await snapshot(catalog.db)).toBe(before);
  }, 60_000);

  it('refuses a file that is not JSON, a missing file and an unknown command with exit 1', async () => {
    const notJson = await runCli(['import', await file('bad.txt', 'type,brand\n')], env);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(/is not valid JSON/);
    const missing = await runCli(['import', join(dir, 'nope.json')], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Cannot read/);
    const unknown = await runCli(['export'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Unknown command "export"/);
  });
});
