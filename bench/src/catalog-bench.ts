import os from 'node:os';
import pg from 'pg';
import { signContext } from '@acs/auth';
import { testServerUrl, uniqueName } from '@acs/testing';
import { startProcess, type ServiceProcess } from './processes.js';
import { importBodies, importScenarios, peakRssMiB, type ImportTarget } from './catalog-import.js';
import { startGatewayFor } from './catalog-gateway.js';
import { scrapeDacBuckets, serviceShares } from './service-timing.js';
import { benchOptions } from './bench-options.js';

const HELP = `Catalog benchmark on the real PostgreSQL: the admin import and GET /api/Dac at a million rows.

Usage: npm run build && node bench/dist/catalog-bench.js [--rows N] [--total N] [--samples N] [--replica-url URL]
                                                     [--in-flight N] [--import-only] [--no-gateway]

  --rows N          entries imported over HTTP (default 100000), in batches of 20000 (the request limit)
  --in-flight N     import requests at a time in the parallel rows (default 2)
  --import-only     only the import rows (no million-row load, no reads)
  --no-gateway      import only directly at the service (the gateway rows need Redis, keys and identity)
  --total N         catalog size for the read part (default 1000000; the rest is added with generate_series)
  --samples N       requests per read row (default 500; shorten on a loaded machine)
  --replica-url U   a hot standby of DATABASE_URL's server (default CATALOG_TEST_REPLICA_URL or
                    postgres://postgres@127.0.0.1:5433/postgres; scripts/start-catalog-replica.sh);
                    "none" skips the replica rows

The catalog service runs as its own process (services/catalog/dist/main.js). Imports are
measured twice: directly at the service with a gateway-signed Admin context, and end to end
through the gateway (with keys and identity as their own processes: an application key with
write:devices and an Admin's JWT). Reads are measured at the service. Environment: DATABASE_URL,
REDIS_URL (default: the local servers). Creates and drops its own databases (acs_bench_catalog_*).`;

const values = benchOptions(HELP, {
  rows: { type: 'string', default: '100000' },
  total: { type: 'string', default: '1000000' },
  samples: { type: 'string', default: '500' },
  'replica-url': { type: 'string', default: process.env.CATALOG_TEST_REPLICA_URL || 'postgres://postgres@127.0.0.1:5433/postgres' },
  'in-flight': { type: 'string', default: '2' },
  'import-only': { type: 'boolean' },
  'no-gateway': { type: 'boolean' },
});
const IMPORT_ROWS = Number(values.rows);
const TOTAL_ROWS = Number(values.total);
const SAMPLES = Number(values.samples);
const IN_FLIGHT = Number(values['in-flight']);
const REPLICA_SERVER = values['replica-url'] === 'none' ? null : values['replica-url']!;
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

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function signed(
  url: string,
  method: 'GET' | 'POST',
  path: string,
  context: typeof ADMIN | typeof READER,
  body?: string,
  extra: Record<string, string> = {},
): Promise<Response> {
  const { context: ctx, signature } = signContext(INTERNAL_SECRET, 'catalog', method, path, context);
  return fetch(url + path, {
    method,
    headers: { 'x-acs-context': ctx, 'x-acs-signature': signature, ...(body ? { 'content-type': 'application/json' } : {}), ...extra },
    ...(body ? { body } : {}),
  });
}

async function timeGets(
  url: string,
  paths: string[],
  headers: (path: string) => Record<string, string> = () => ({}),
  expected = 200,
): Promise<{ p50: number; p99: number; max: number; n: number }> {
  const samples: number[] = [];
  for (const path of paths) {
    const started = performance.now();
    const response = await signed(url, 'GET', path, READER, undefined, headers(path));
    await response.arrayBuffer();
    samples.push(performance.now() - started);
    if (response.status !== expected) throw new Error(`GET ${path} answered ${response.status}`);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples[samples.length - 1]!, n: samples.length };
}

const loadAverage = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const fmt = (r: { p50: number; p99: number; max: number; n: number }): string =>
  `p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  max ${r.max.toFixed(2)} ms  (${r.n} requests)`;

const rowLabel = (label: string): string => label.padEnd(44);

/** One row of the service's read table: the label, then the latencies of GETting `paths` one after another. */
async function printTimedGets(label: string, url: string, paths: string[]): Promise<void> {
  console.log(`${label.padEnd(34)} ${fmt(await timeGets(url, paths))}`);
}

/**
 * A cursor after `afterId` with no filter, in the layout of services/catalog/src/domain/
 * catalog-cursor.ts (the bench starts anywhere without walking there; should the layout change,
 * the service answers 400 and the bench stops).
 */
const encodeCursor = ({ afterId }: { afterId: number }): string =>
  Buffer.from(JSON.stringify([1, afterId, null, null, null])).toString('base64url');

/** Cursors at random positions, from the first row to the last (what nextCursor would hold). */
async function randomCursors(db: pg.Client, count: number): Promise<string[]> {
  const { rows } = await db.query<{ id: number }>('SELECT id FROM catalog_entries TABLESAMPLE SYSTEM (1) LIMIT $1', [count]);
  const ids = rows.map((row) => row.id);
  const {
    rows: [last],
  } = await db.query<{ id: number }>('SELECT max(id) AS id FROM catalog_entries');
  ids.push(last!.id - 25); // the very end
  return ids.map((id) => encodeCursor({ afterId: id }));
}

async function readsAtScale(url: string, db: pg.Client, total: number): Promise<void> {
  console.log(`\nissue 18 rows: ${total} entries; ${SAMPLES} requests per row unless stated`);
  await cursorRows(url, db);
  await conditionalRows(url);
  await searchRows(url, total);
  await pageOneWhileDeep(url, total);
}

/**
 * Cursor rows: client-side latencies, and beside them the service's own histogram (the goal is
 * p99 < 5 ms at the service, i.e. at least 99% at or under 5 ms), and a trivial request (a 304,
 * one read of catalog_version) in the same minute as the noise floor of the machine.
 */
async function cursorRows(url: string, db: pg.Client): Promise<void> {
  const cursors = await randomCursors(db, SAMPLES);
  await timeGets(
    url,
    cursors.slice(0, 50).map((c) => `/api/Dac?cursor=${c}`),
  ); // warm-up
  const lastId = Number(JSON.parse(Buffer.from(cursors.at(-1)!, 'base64url').toString())[1]);
  await printTimedAtService(
    url,
    'cursor at the first row (pageSize 20)',
    Array.from({ length: SAMPLES }, () => `/api/Dac?cursor=${encodeCursor({ afterId: 0 })}`),
  );
  await printTimedAtService(
    url,
    'cursor at the millionth row (pageSize 20)',
    Array.from({ length: SAMPLES }, () => `/api/Dac?cursor=${encodeCursor({ afterId: lastId })}`),
  );
  await printTimedAtService(
    url,
    'cursor pages anywhere (pageSize 20)',
    cursors.map((c) => `/api/Dac?cursor=${c}`),
  );
  await printTimedAtService(
    url,
    'cursor pages anywhere, pageSize 100',
    cursors.map((c) => `/api/Dac?cursor=${c}&pageSize=100`),
  );
  const floorTag = (await signed(url, 'GET', '/api/Dac?pageSize=1', READER)).headers.get('etag')!;
  console.log(
    `${rowLabel('noise floor: 304 (one catalog_version read)')} ${fmt(
      await timeGets(
        url,
        Array.from({ length: SAMPLES }, () => '/api/Dac?pageSize=1'),
        () => ({ 'if-none-match': floorTag }),
        304,
      ),
    )}  load average ${loadAverage()}`,
  );
}

/** One cursor row: the client's latencies, and under them the service's histogram over the same requests. */
async function printTimedAtService(url: string, label: string, paths: string[]): Promise<void> {
  const before = await scrapeDacBuckets(url);
  const client = await timeGets(url, paths);
  console.log(`${rowLabel(label)} ${fmt(client)}\n${''.padEnd(45)}${serviceShares(before, await scrapeDacBuckets(url))}`);
}

/** Conditional reads: the same pages, with and without the ETag of an earlier answer. */
async function conditionalRows(url: string): Promise<void> {
  const paths = Array.from({ length: SAMPLES }, (_, i) => `/api/Dac?page=${(i % 50) + 1}&pageSize=100`);
  const etags = new Map<string, string>();
  for (const path of new Set(paths)) etags.set(path, (await signed(url, 'GET', path, READER)).headers.get('etag')!);
  console.log(`${rowLabel('200: pages 1-50, pageSize 100')} ${fmt(await timeGets(url, paths))}`);
  console.log(
    `${rowLabel('304: the same with If-None-Match')} ${fmt(await timeGets(url, paths, (path) => ({ 'if-none-match': etags.get(path)! }), 304))}`,
  );
}

/** Search (q) and type. */
async function searchRows(url: string, total: number): Promise<void> {
  const searches = Array.from(
    { length: Math.min(SAMPLES, 200) },
    (_, i) => `/api/Dac?q=${encodeURIComponent(`model ${(i * 7919) % total}`)}`,
  );
  console.log(`${rowLabel('search q="model <n>" (few matches)')} ${fmt(await timeGets(url, searches))}`);
  const brandSearch = Array.from(
    { length: Math.min(SAMPLES, 200) },
    (_, i) => `/api/Dac?q=${encodeURIComponent(`brand ${(i * 37) % BRANDS}`)}`,
  );
  console.log(`${rowLabel('search q="brand <n>" (~1,000+ matches)')} ${fmt(await timeGets(url, brandSearch))}`);
  console.log(
    `${rowLabel('type=dac, pages 1-5')} ${fmt(
      await timeGets(
        url,
        Array.from({ length: SAMPLES }, (_, i) => `/api/Dac?type=dac&page=${(i % 5) + 1}`),
      ),
    )}`,
  );
}

/** Page 1 while 16 deep requests run (issue 18, item 0): each deep request skips ~all rows. */
async function pageOneWhileDeep(url: string, total: number): Promise<void> {
  const deepPage = Math.max(1, Math.floor((total - 50) / 100));
  const deep = { stop: false, done: 0 };
  const deepStarted = performance.now();
  const workers = Array.from({ length: 16 }, () => askDeepPage(url, `/api/Dac?page=${deepPage}&pageSize=100`, deep));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const during = await timeGets(
    url,
    Array.from({ length: Math.min(SAMPLES, 300) }, () => '/api/Dac?page=1'),
  );
  deep.stop = true;
  await Promise.all(workers);
  const seconds = (performance.now() - deepStarted) / 1000;
  console.log(
    `${rowLabel(`page 1 while 16 ask page ${deepPage}×100`)} ${fmt(during)}  (deep: ${deep.done} answered, ${(deep.done / seconds).toFixed(2)}/s)`,
  );
}

/** GETs `path` again and again until `deep.stop`, counting the answers in `deep.done`. */
async function askDeepPage(url: string, path: string, deep: { stop: boolean; done: number }): Promise<void> {
  while (!deep.stop) {
    const response = await signed(url, 'GET', path, READER);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`deep page answered ${response.status}`);
    deep.done += 1;
  }
}

/** The same reads through a second catalog process reading from the hot standby. */
async function replicaReads(db: pg.Client, total: number): Promise<void> {
  const replicaUrl = new URL(REPLICA_SERVER!);
  replicaUrl.pathname = `/${dbName}`;
  const waitedMs = await waitForReplica(db, replicaUrl.toString());
  console.log(
    `\nreplica: caught up with ${total} entries ${(waitedMs / 1000).toFixed(1)} s after the load; a second catalog process reads from it`,
  );
  const reader = await startProcess('catalog-replica', 'services/catalog/dist/main.js', {
    INTERNAL_SECRET,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    DATABASE_URL: dbUrl,
    CATALOG_SEED: 'false',
    CATALOG_READ_DATABASE_URL: replicaUrl.toString(),
  });
  try {
    await replicaRows(reader.url, db);
  } finally {
    await reader.stop();
  }
}

/** Polls the standby until its catalog_version has reached the primary's (at most 5 minutes); how long that took, in ms. */
async function waitForReplica(db: pg.Client, replicaUrl: string): Promise<number> {
  const {
    rows: [primary],
  } = await db.query<{ version: string }>('SELECT version FROM catalog_version');
  const probe = new pg.Client({ connectionString: replicaUrl });
  const started = performance.now();
  for (let tries = 0; ; tries++) {
    try {
      if (tries === 0 || !(probe as unknown as { _connected?: boolean })._connected) await probe.connect();
      const {
        rows: [replica],
      } = await probe.query<{ version: string }>('SELECT version FROM catalog_version');
      if (Number(replica!.version) >= Number(primary!.version)) break;
    } catch {
      // not there yet
    }
    if (tries > 600) throw new Error('the replica did not catch up in 5 minutes');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await probe.end().catch(() => undefined);
  return performance.now() - started;
}

/** The replica's rows: first pages, cursor pages anywhere and 304s, at the catalog process reading from it. */
async function replicaRows(readerUrl: string, db: pg.Client): Promise<void> {
  const firstPages = Array.from({ length: 100 }, (_, i) => `/api/Dac?page=${i + 1}`);
  await timeGets(readerUrl, firstPages); // warm-up
  console.log(
    `${rowLabel('replica: first 100 pages ×5')} ${fmt(await timeGets(readerUrl, [...firstPages, ...firstPages, ...firstPages, ...firstPages, ...firstPages]))}`,
  );
  const cursors = await randomCursors(db, SAMPLES);
  console.log(
    `${rowLabel('replica: cursor pages anywhere')} ${fmt(
      await timeGets(
        readerUrl,
        cursors.map((c) => `/api/Dac?cursor=${c}`),
      ),
    )}`,
  );
  const etag = (await signed(readerUrl, 'GET', '/api/Dac?pageSize=100', READER)).headers.get('etag')!;
  console.log(
    `${rowLabel('replica: 304')} ${fmt(
      await timeGets(
        readerUrl,
        Array.from({ length: SAMPLES }, () => '/api/Dac?pageSize=100'),
        () => ({ 'if-none-match': etag }),
        304,
      ),
    )}`,
  );
}

let catalog: ServiceProcess | undefined;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
try {
  const cpu = os.cpus();
  console.log(`machine: ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
  catalog = await startProcess('catalog', 'services/catalog/dist/main.js', {
    INTERNAL_SECRET,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    DATABASE_URL: dbUrl,
    CATALOG_SEED: 'false',
  });
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const {
      rows: [version],
    } = await db.query<{ server_version: string }>('SHOW server_version');
    console.log(`PostgreSQL ${version!.server_version}`);

    // (a) The import over HTTP, at the service and through the gateway.
    const bodies = importBodies(IMPORT_ROWS, BATCH);
    const bytes = bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0);
    console.log(
      `import: ${IMPORT_ROWS} entries, ${(bytes / 2 ** 20).toFixed(1)} MiB of JSON in ${bodies.length} requests; load average ${loadAverage()}`,
    );
    const direct: ImportTarget = {
      label: 'at the service',
      url: catalog.url,
      headers: (method, path) => {
        const { context, signature } = signContext(INTERNAL_SECRET, 'catalog', method, path, ADMIN);
        return { 'x-acs-context': context, 'x-acs-signature': signature };
      },
    };
    const emptyCatalog = async (): Promise<void> => {
      await db.query('TRUNCATE catalog_entries');
    };
    await importScenarios(direct, bodies, IMPORT_ROWS, IN_FLIGHT, emptyCatalog);
    if (!values['no-gateway']) {
      const gateway = await startGatewayFor(catalog, `${dbName}_gw`, INTERNAL_SECRET);
      try {
        await importScenarios(gateway.target, bodies, IMPORT_ROWS, IN_FLIGHT, emptyCatalog);
      } finally {
        await gateway.stop();
      }
    }
    const {
      rows: [check],
    } = await db.query<{ real: number; kept: number }>(
      `SELECT (SELECT count(*)::int FROM catalog_entries) AS real, (SELECT entries::int FROM catalog_counts WHERE brand_key = '') AS kept`,
    );
    console.log(
      `counts after import: real ${check!.real}, trigger-kept ${check!.kept}; catalog peak RSS ${peakRssMiB(catalog).toFixed(0)} MiB; load average ${loadAverage()}`,
    );
    if (!values['import-only']) {
      // (b) Reads with TOTAL_ROWS loaded.
      const started = performance.now();
      await db.query(
        `INSERT INTO catalog_entries (type, brand, model, price, release_year, specs)
         SELECT 'dac', 'Bench Brand ' || (i % ${BRANDS}), 'Series Model ' || i, (i % 5000) + 0.99, 2000 + (i % 25),
                '{"chip":"ESS ES9018K2M","maxSampleRateHz":192000,"maxBitDepth":24,"dsd":null,"inputs":["usb"],"outputs":["rca"]}'::jsonb
           FROM generate_series(1, $1::int) AS i`,
        [Math.max(0, TOTAL_ROWS - IMPORT_ROWS)],
      );
      // A settled catalog, as autovacuum and the checkpointer leave one (this machine's server runs
      // with autovacuum off): visibility map set, the trigram index's pending list merged,
      // statistics fresh, the load's dirty pages written. Without it the first reads set hint bits,
      // merge the pending list and wait for page write-outs while they are being timed.
      await db.query('VACUUM (ANALYZE) catalog_entries');
      await db.query('CHECKPOINT');
      const {
        rows: [loaded],
      } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM catalog_entries');
      console.log(
        `\nreads: ${loaded!.n} entries (${BRANDS} brands) loaded, vacuumed, analysed and checkpointed in ${((performance.now() - started) / 1000).toFixed(1)} s; sequential requests, one connection`,
      );
      const firstPages = Array.from({ length: 100 }, (_, i) => `/api/Dac?page=${i + 1}`);
      await timeGets(catalog.url, firstPages); // warm-up
      await printTimedGets('first 100 pages (pageSize 20) ×5', catalog.url, Array.from({ length: 5 }, () => firstPages).flat());
      await printTimedGets(
        'first 100 pages, pageSize 100',
        catalog.url,
        firstPages.map((p) => `${p}&pageSize=100`),
      );
      const brandPaths = Array.from(
        { length: 500 },
        (_, i) => `/api/Dac?brand=${encodeURIComponent(`bench brand ${(i * 37) % BRANDS}`)}&page=${(i % 5) + 1}`,
      );
      await printTimedGets('brand filter, pages 1-5', catalog.url, brandPaths);
      await printTimedGets('deep page 5000 (offset 99,980)', catalog.url, Array(100).fill('/api/Dac?page=5000'));
      await printTimedGets('deep page 50000 (offset 999,980)', catalog.url, Array(20).fill('/api/Dac?page=50000'));
      await readsAtScale(catalog.url, db, loaded!.n);
      if (REPLICA_SERVER) await replicaReads(db, loaded!.n);
    }
  } finally {
    await db.end();
  }
} finally {
  await catalog?.stop();
  await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin.end();
}
