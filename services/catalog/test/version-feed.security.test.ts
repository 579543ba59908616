import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openDatabase, type Db, type Listener } from '@acs/db';
import { createTestDatabase, silentLogger, type TestDatabase } from '@acs/testing';
import { CatalogReads } from '../src/data-access/catalog-reads.js';
import { followCatalogVersions } from '../src/data-access/catalog-version-feed.js';

// Issue 24.6: anyone who can run NOTIFY on the primary (any role that connects to its database) can
// claim any catalog version. A notification is a hint: the version reads must see never rises above
// what the primary itself reports, so a forged one costs one read on the primary, not every read after.
// Two real databases stand for the primary and a replica that is up to date.

let primaryDatabase: TestDatabase;
let replicaDatabase: TestDatabase;
let primary: Db;
let replica: Db;
let feed: Listener;
let reads: CatalogReads;

async function catalogVersionTable(db: Db, version: number): Promise<void> {
  await db.query('CREATE TABLE catalog_version (version bigint NOT NULL)');
  await db.query('INSERT INTO catalog_version (version) VALUES ($1)', [version]);
}

beforeAll(async () => {
  primaryDatabase = await createTestDatabase('catalog_feed');
  replicaDatabase = await createTestDatabase('catalog_feed_replica');
  primary = await openDatabase({ url: primaryDatabase.url, logger: silentLogger() });
  replica = await openDatabase({ url: replicaDatabase.url, logger: silentLogger() });
  await catalogVersionTable(primary, 7);
  await catalogVersionTable(replica, 7);
  reads = new CatalogReads(primary, replica, silentLogger());
  feed = await followCatalogVersions(primaryDatabase.url, primary, reads, silentLogger());
});
afterAll(async () => {
  await feed?.close();
  await primary?.close();
  await replica?.close();
  await primaryDatabase?.drop();
  await replicaDatabase?.drop();
});

async function untilTrue(check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('timed out');
}

describe('a forged NOTIFY catalog_version', () => {
  it('reads from the up-to-date replica before anything is claimed', async () => {
    await untilTrue(async () => (await reads.source()).db === replica);
  });

  it('sends at most the next read to the primary, then the replica serves again', async () => {
    await primary.query(`NOTIFY catalog_version, '999999999'`);
    await untilTrue(async () => (await reads.source()).db === primary); // heard, checked against the primary
    for (let i = 0; i < 3; i++) expect((await reads.source()).db).toBe(replica);
  });

  it('still follows a real version: a replica behind the primary is not read until it catches up', async () => {
    await primary.query('UPDATE catalog_version SET version = 8');
    await primary.query(`NOTIFY catalog_version, '8'`);
    await untilTrue(async () => (await reads.source()).db === primary);
    expect((await reads.source()).db).toBe(primary);
    await replica.query('UPDATE catalog_version SET version = 8');
    expect((await reads.source()).db).toBe(replica);
  });
});
