import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { signContext } from '@acs/auth';
import { testServerUrl, uniqueName } from '@acs/testing';
import { startProcess, type ServiceProcess } from './processes.js';

const HELP = `Catalog benchmark on the real PostgreSQL: the admin import and GET /api/Dac at a million rows.

Usage: npm run build && node bench/dist/catalog-bench.js [--rows N] [--total N]

  --rows N    entries imported over HTTP (default 100000), in batches of 20000 (the request limit)
  --total N   catalog size for the read part (default 1000000; the rest is added with generate_series)

The catalog service runs as its own process (services/catalog/dist/main.js) and is called
directly with a gateway-signed Admin context: the gateway only streams a large body through, so
the import is measured at the service. Environment: DATABASE_URL (default: the local server).
Creates and drops its own database (acs_bench_catalog_*).`;

const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' }, total: { type: 'string', default: '1000000' }, help: { type: 'boolean', short: 'h' } } });
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const IMPORT_ROWS = Number(values.rows);
const TOTAL_ROWS = Number(values.total);
const BATCH = 20_000;
const BRANDS = 1_000;
const INTERNAL_SECRET = 'bench-internal-secret-0123456789abcdefgh';
const ADMIN = { requestId: 'bench', keyId: 'bench-key', scopes: ['write:devices'], userId: 1, role: 2 };
const READER = { requestId: 'bench', keyId: 'bench-key', scopes: ['read:devices'] };

const serverUrl = testServerUrl('DATABASE_URL');
const dbName = uniqueName('acs_bench_catalog');
const dbUrl = (() => {
  const url = new URL(serverUrl);
  url.pathname = `/${dbName}`;
  return url.toString();
})();

function entry(i: number): Record<string, unknown> {
  return {
    type: 'dac',
    brand: `Bench Brand ${i % BRANDS}`,
    model: `Import Model ${i}`,
    price: (i % 5000) + 0.99,
    currency: 'USD',
    releaseYear: 2000 + (i % 25),
    specs: { chip: 'ESS ES9038Q2M', maxSampleRateHz: 384000, maxBitDepth: 32, dsd: 'DSD256', inputs: ['usb', 'optical'], outputs: ['rca', 'xlr'] },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function signed(url: string, method: 'GET' | 'POST', path: string, context: typeof ADMIN | typeof READER, body?: string): Promise<Response> {
  const { context: ctx, signature } = signContext(INTERNAL_SECRET, 'catalog', method, path, context);
  return fetch(url + path, { method, headers: { 'x-acs-context': ctx, 'x-acs-signature': signature, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body } : {}) });
}

async function timeGets(url: string, paths: string[]): Promise<{ p50: number; p99: number; max: number; n: number }> {
  const samples: number[] = [];
  for (const path of paths) {
    const started = performance.now();
    const response = await signed(url, 'GET', path, READER);
    await response.arrayBuffer();
    samples.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples[samples.length - 1]!, n: samples.length };
}

const fmt = (r: { p50: number; p99: number; max: number; n: number }): string => `p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  max ${r.max.toFixed(2)} ms  (${r.n} requests)`;

let catalog: ServiceProcess | undefined;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
try {
  const cpu = os.cpus();
  console.log(`machine: ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
  catalog = await startProcess('catalog', 'services/catalog/dist/main.js', { INTERNAL_SECRET, LOG_LEVEL: 'warn', HOST: '127.0.0.1', DATABASE_URL: dbUrl, CATALOG_SEED: 'false' });
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const { rows: [version] } = await db.query<{ server_version: string }>('SHOW server_version');
    console.log(`PostgreSQL ${version!.server_version}`);

    // (a) The import over HTTP. Bodies are built first: the client's JSON.stringify is not the service's work.
    const bodies: string[] = [];
    for (let start = 0; start < IMPORT_ROWS; start += BATCH) {
      bodies.push(JSON.stringify(Array.from({ length: Math.min(BATCH, IMPORT_ROWS - start) }, (_, k) => entry(start + k))));
    }
    const bytes = bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0);
    const run = async (label: string, query = '', parallel = 1): Promise<void> => {
      const started = performance.now();
      let inserted = 0;
      let updated = 0;
      const perBatch: number[] = [];
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < bodies.length) {
          const body = bodies[next++]!;
        const t = performance.now();
        const response = await signed(catalog!.url, 'POST', `/api/Dac/import${query}`, ADMIN, body);
        const counts = (await response.json()) as { inserted: number; updated: number };
        if (response.status !== 200) throw new Error(`import answered ${response.status}: ${JSON.stringify(counts)}`);
        inserted += counts.inserted;
        updated += counts.updated;
        perBatch.push(performance.now() - t);
        }
      };
      await Promise.all(Array.from({ length: parallel }, worker));
      const seconds = (performance.now() - started) / 1000;
      console.log(`${label.padEnd(34)} ${(IMPORT_ROWS / seconds).toFixed(0).padStart(7)} rows/s  ${seconds.toFixed(2)} s  (${inserted} inserted, ${updated} updated; per ${BATCH}-row request ${Math.min(...perBatch).toFixed(0)}-${Math.max(...perBatch).toFixed(0)} ms)`);
    };
    console.log(`import: ${IMPORT_ROWS} entries, ${(bytes / 2 ** 20).toFixed(1)} MiB of JSON in ${bodies.length} requests, sequential, one connection`);
    await run('import, new products');
    await run('import again (all updates)');
    await run('dry run (lookups only)', '?dryRun=true');
    // Two requests in flight: the service validates one batch while PostgreSQL writes the other.
    await db.query('TRUNCATE catalog_entries');
    await run('import, new, 2 requests in flight', '', 2);
    await run('import again, 2 in flight', '', 2);
    const { rows: [check] } = await db.query<{ real: number; kept: number }>(`SELECT (SELECT count(*)::int FROM catalog_entries) AS real, (SELECT entries::int FROM catalog_counts WHERE brand_key = '') AS kept`);
    console.log(`counts after import: real ${check!.real}, trigger-kept ${check!.kept}`);

    // (b) Reads with TOTAL_ROWS loaded.
    const started = performance.now();
    await db.query(
      `INSERT INTO catalog_entries (type, brand, model, price, release_year, specs)
       SELECT 'dac', 'Bench Brand ' || (i % ${BRANDS}), 'Series Model ' || i, (i % 5000) + 0.99, 2000 + (i % 25),
              '{"chip":"ESS ES9018K2M","maxSampleRateHz":192000,"maxBitDepth":24,"dsd":null,"inputs":["usb"],"outputs":["rca"]}'::jsonb
         FROM generate_series(1, $1::int) AS i`,
      [Math.max(0, TOTAL_ROWS - IMPORT_ROWS)],
    );
    await db.query('ANALYZE catalog_entries');
    const { rows: [loaded] } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM catalog_entries');
    console.log(`\nreads: ${loaded!.n} entries (${BRANDS} brands) loaded and analysed in ${((performance.now() - started) / 1000).toFixed(1)} s; sequential requests, one connection`);
    const firstPages = Array.from({ length: 100 }, (_, i) => `/api/Dac?page=${i + 1}`);
    await timeGets(catalog.url, firstPages); // warm-up
    console.log(`${'first 100 pages (pageSize 20) ×5'.padEnd(34)} ${fmt(await timeGets(catalog.url, [...firstPages, ...firstPages, ...firstPages, ...firstPages, ...firstPages]))}`);
    console.log(`${'first 100 pages, pageSize 100'.padEnd(34)} ${fmt(await timeGets(catalog.url, firstPages.map((p) => `${p}&pageSize=100`)))}`);
    const brandPaths = Array.from({ length: 500 }, (_, i) => `/api/Dac?brand=${encodeURIComponent(`bench brand ${(i * 37) % BRANDS}`)}&page=${(i % 5) + 1}`);
    console.log(`${'brand filter, pages 1-5'.padEnd(34)} ${fmt(await timeGets(catalog.url, brandPaths))}`);
    console.log(`${'deep page 5000 (offset 99,980)'.padEnd(34)} ${fmt(await timeGets(catalog.url, Array.from({ length: 100 }, () => '/api/Dac?page=5000')))}`);
    console.log(`${'deep page 50000 (offset 999,980)'.padEnd(34)} ${fmt(await timeGets(catalog.url, Array.from({ length: 20 }, () => '/api/Dac?page=50000')))}`);
  } finally {
    await db.end();
  }
} finally {
  await catalog?.stop();
  await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin.end();
}
