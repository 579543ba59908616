import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { openDatabase, type Db } from '@acs/db';
import { createTestDatabase, type TestDatabase } from '@acs/testing';
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
  replica = await openDatabase({ url: replicaUrl, logger: silentLogger(), poolSize: 1 });
  const primaryVersion = await versionOn(catalog.db);
  await waitFor('the replica to replay the seed', async () => (await versionOn(replica)) >= primaryVersion);
}, 60_000);

afterAll(async () => {
  await replica?.query('SELECT pg_wal_replay_resume()').catch(() => undefined);
  await replica?.close();
  await catalog?.stop();
});

async function listBrand(brand: string, headers?: Record<string, string>): Promise<{ body: CatalogPageBody; etag: string }> {
  const response = await catalog.get(`/api/Dac?brand=${encodeURIComponent(brand)}`, headers);
  expect(response.status).toBe(200);
  return { body: (await response.json()) as CatalogPageBody, etag: response.headers.get('etag')! };
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

  it('reads from the replica: a row written on the primary behind the service is not seen while the replica lags, then is', async () => {
    const brand = uniqueBrand('Lagging');
    await insertEntries(catalog.db, [buildEntry({ brand })]);
    await waitFor('the first row on the replica', async () => (await listBrand(brand)).body.total === 1);
    const before = await listBrand(brand);

    await withReplayPaused(async () => {
      await insertEntries(catalog.db, [buildEntry({ brand })]); // an operator's SQL: the service does not know
      expect(await versionOn(catalog.db)).toBeGreaterThan(await versionOn(replica));
      const lagging = await listBrand(brand);
      expect(lagging.body.total).toBe(1); // the replica's answer
      expect(lagging.etag).toBe(before.etag); // the replica's version, consistent with its rows
    });

    await waitFor('the replica to catch up', async () => (await listBrand(brand)).body.total === 2);
    const caughtUp = await listBrand(brand);
    expect(caughtUp.etag).not.toBe(before.etag);
    expect((await catalog.get(`/api/Dac?brand=${encodeURIComponent(brand)}`, { 'if-none-match': caughtUp.etag })).status).toBe(304);
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
    await withReplayPaused(async () => {
      await insertEntries(catalog.db, [buildEntry({ brand })]); // behind the service's back: only the primary has it
      const response = await postImport(catalog, [buildEntry()], { query: '?dryRun=true' });
      expect(response.status).toBe(200);
      expect((await listBrand(brand)).body.total).toBe(0); // still the replica
    });
  });
});
