import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { openDatabase, type Db } from '@acs/db';
import { createTestDatabase, metricValue, type TestDatabase } from '@acs/testing';
import { postImport } from './import-helpers.js';
import {
  buildEntry,
  insertEntries,
  silentLogger,
  startCatalog,
  uniqueBrand,
  type CatalogHarness,
  type CatalogPageBody,
} from './harness.js';

/**
 * Reads through a real streaming replica: the hot standby scripts/start-catalog-replica.sh starts
 * on this machine (.ci/run does). CATALOG_TEST_REPLICA_URL names its server; the test database
 * created on the primary reaches it by replication.
 */
const REPLICA_SERVER = process.env.CATALOG_TEST_REPLICA_URL || 'postgres://postgres@127.0.0.1:5433/postgres';

let database: TestDatabase;
let catalog: CatalogHarness;
let other: CatalogHarness; // a second instance on the same primary and replica (as behind a load balancer)
let replica: Db; // the test's own connection to the standby, to pause and resume its replay

function onReplica(primaryUrl: string): string {
  const url = new URL(REPLICA_SERVER);
  url.pathname = new URL(primaryUrl).pathname;
  return url.toString();
}

async function waitFor(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 300; tries++) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function versionOn(db: Db): Promise<number> {
  const { rows } = await db.query<{ version: string }>('SELECT version FROM catalog_version');
  return Number(rows[0]!.version);
}

beforeAll(async () => {
  database = await createTestDatabase('catalog');
  const replicaUrl = onReplica(database.url);
  // The service migrates and seeds the primary first, then opens the replica.
  catalog = await startCatalog({ database, env: { CATALOG_READ_DATABASE_URL: replicaUrl } }).catch((err: unknown) => {
    throw new Error(`Is the replica running (sudo bash scripts/start-catalog-replica.sh)? ${(err as Error).message}`);
  });
  other = await startCatalog({ database, seed: false, env: { CATALOG_READ_DATABASE_URL: replicaUrl } });
  replica = await openDatabase({ url: replicaUrl, logger: silentLogger(), poolSize: 1 });
  const primaryVersion = await versionOn(catalog.db);
  await waitFor('the replica to replay the seed', async () => (await versionOn(replica)) >= primaryVersion);
}, 60_000);

afterAll(async () => {
  await replica?.query('SELECT pg_wal_replay_resume()').catch(() => undefined);
  await replica?.close();
  await other?.stopService();
  await catalog?.stop();
});

async function listBrand(
  brand: string,
  headers?: Record<string, string>,
  instance: CatalogHarness = catalog,
): Promise<{ body: CatalogPageBody; etag: string }> {
  const response = await instance.get(`/api/Dac?brand=${encodeURIComponent(brand)}`, headers);
  expect(response.status).toBe(200);
  return { body: (await response.json()) as CatalogPageBody, etag: response.headers.get('etag')! };
}

/** catalog_reads_total of an instance: reads the replica answered, and reads the primary answered. */
async function readsBySource(instance: CatalogHarness): Promise<{ replica: number; primary: number }> {
  const text = await (await fetch(`${instance.url}/metrics`)).text();
  return {
    replica: metricValue(text, 'catalog_reads_total', { source: 'replica' }) ?? 0,
    primary: metricValue(text, 'catalog_reads_total', { source: 'primary' }) ?? 0,
  };
}

/** Runs `fn` while the standby replays nothing (replication lag, for as long as we like). */
async function withReplayPaused<T>(fn: () => Promise<T>): Promise<T> {
  await replica.query('SELECT pg_wal_replay_pause()');
  await waitFor('the replay to pause', async () => {
    const { rows } = await replica.query<{ state: string }>('SELECT pg_get_wal_replay_pause_state() AS state');
    return rows[0]!.state === 'paused';
  });
  try {
    return await fn();
  } finally {
    await replica.query('SELECT pg_wal_replay_resume()');
  }
}

describe('catalog reads with CATALOG_READ_DATABASE_URL (a real hot standby)', () => {
  it('the replica is a standby in recovery, and it has the migrated catalog', async () => {
    const { rows } = await replica.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
    expect(rows[0]!.standby).toBe(true);
    await expect(replica.query('INSERT INTO catalog_meta (name, value) VALUES ($1, $2)', ['x', 'y'])).rejects.toThrow(/read-only/);
  });

  it('reads from the replica while it has replayed every committed version', async () => {
    const brand = uniqueBrand('Current');
    await insertEntries(catalog.db, [buildEntry({ brand })]);
    await waitFor('the row on the replica', async () => (await versionOn(replica)) >= (await versionOn(catalog.db)));
    const before = await readsBySource(catalog);
    const seen = await listBrand(brand);
    expect(seen.body.total).toBe(1);
    expect(seen.etag.startsWith(`"${await versionOn(replica)}-`)).toBe(true);
    expect((await catalog.get(`/api/Dac?brand=${encodeURIComponent(brand)}`, { 'if-none-match': seen.etag })).status).toBe(304);
    expect(await readsBySource(catalog)).toEqual({ replica: before.replica + 2, primary: before.primary });
  });

  it("hears a write made behind the service's back (an operator's SQL) and reads the primary while the replica lags", async () => {
    const brand = uniqueBrand('Lagging');
    await withReplayPaused(async () => {
      await insertEntries(catalog.db, [buildEntry({ brand })]);
      const committed = await versionOn(catalog.db);
      expect(committed).toBeGreaterThan(await versionOn(replica));
      // The NOTIFY of migration 005 reaches each instance within milliseconds of the commit.
      for (const instance of [catalog, other]) {
        await waitFor('the version to be heard', async () => (await listBrand(brand, undefined, instance)).body.total === 1);
        expect((await listBrand(brand, undefined, instance)).etag.startsWith(`"${committed}-`)).toBe(true);
      }
    });
  });

  it('reads its own writes: after an import through the service, a lagging replica is skipped for the primary', async () => {
    const brand = uniqueBrand('Imported');
    await withReplayPaused(async () => {
      const response = await postImport(catalog, [buildEntry({ brand }), buildEntry({ brand })]);
      expect(response.status).toBe(200);
      expect(await versionOn(replica)).toBeLessThan(await versionOn(catalog.db));
      const seen = await listBrand(brand);
      expect(seen.body.total).toBe(2);
      expect(seen.body.items.map((item) => item.brand)).toEqual([brand, brand]);
      expect(seen.etag.startsWith(`"${await versionOn(catalog.db)}-`)).toBe(true);
    });
    // Once the replica has replayed the import, reads go back to it and see the same.
    await waitFor('the replica to replay the import', async () => (await versionOn(replica)) >= (await versionOn(catalog.db)));
    expect((await listBrand(brand)).body.total).toBe(2);
  });

  it('a dry run writes nothing, so it does not send reads to the primary', async () => {
    const brand = uniqueBrand('Dry');
    await insertEntries(catalog.db, [buildEntry({ brand })]);
    await waitFor('the row on the replica', async () => (await versionOn(replica)) >= (await versionOn(catalog.db)));
    await withReplayPaused(async () => {
      const response = await postImport(catalog, [buildEntry()], { query: '?dryRun=true' });
      expect(response.status).toBe(200);
      const before = await readsBySource(catalog);
      expect((await listBrand(brand)).body.total).toBe(1);
      expect(await readsBySource(catalog)).toEqual({ replica: before.replica + 1, primary: before.primary });
    });
  });

  it('read-your-writes across instances: an import through one instance is read at once through another, from the primary while the replica lags', async () => {
    const brand = uniqueBrand('Elsewhere');
    await withReplayPaused(async () => {
      const response = await postImport(catalog, [buildEntry({ brand }), buildEntry({ brand })]);
      expect(response.status).toBe(200);
      const committed = await versionOn(catalog.db);
      expect(await versionOn(replica)).toBeLessThan(committed);
      // No wait: the other instance heard the commit's NOTIFY before this request reached it.
      const before = await readsBySource(other);
      const seen = await listBrand(brand, undefined, other);
      expect(seen.body.total).toBe(2);
      expect(seen.etag.startsWith(`"${committed}-`)).toBe(true);
      expect(await readsBySource(other)).toEqual({ replica: before.replica, primary: before.primary + 1 });
    });
    await waitFor('the replica to replay the import', async () => (await versionOn(replica)) >= (await versionOn(catalog.db)));
    const before = await readsBySource(other);
    expect((await listBrand(brand, undefined, other)).body.total).toBe(2);
    expect((await readsBySource(other)).replica).toBe(before.replica + 1);
  });

  it('while its NOTIFY connection is down an instance trusts no replica, and it listens again by itself', async () => {
    await waitFor('the replica to be current', async () => (await versionOn(replica)) >= (await versionOn(catalog.db)));
    // Both instances listen on this database; end both connections, as a primary restart would.
    const { rows } = await catalog.db.query<{ ended: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
        WHERE datname = current_database() AND query = 'LISTEN "catalog_version"' AND pid <> pg_backend_pid()`,
    );
    expect(rows.length).toBe(2);
    const brand = uniqueBrand('Feed');
    await waitFor('reads to go to the primary', async () => {
      const before = await readsBySource(other);
      await listBrand(brand, undefined, other);
      return (await readsBySource(other)).primary === before.primary + 1;
    });
    await waitFor('the feed to listen again and reads to go back to the replica', async () => {
      const before = await readsBySource(other);
      await listBrand(brand, undefined, other);
      return (await readsBySource(other)).replica === before.replica + 1;
    });
    // Listening again, it hears commits as before.
    await withReplayPaused(async () => {
      await insertEntries(catalog.db, [buildEntry({ brand })]);
      await waitFor('the version to be heard', async () => (await listBrand(brand, undefined, other)).body.total === 1);
    });
  });
});
