import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCliStore } from '@acs/cli';
import { createTestDatabase, type TestDatabase } from '@acs/testing';

describe('openCliStore peers', () => {
  let dir: string;
  let own: TestDatabase;
  let peer: TestDatabase;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-store-peers-'));
    await mkdir(join(dir, 'migrations'));
    await writeFile(join(dir, 'migrations', '001_notes.sql'), 'CREATE TABLE notes (id bigserial PRIMARY KEY);\n');
    own = await createTestDatabase('cli_store_own');
    peer = await createTestDatabase('cli_store_peer');
  });
  afterEach(async () => {
    await Promise.all([own.drop(), peer.drop()]);
    await rm(dir, { recursive: true, force: true });
  });

  it("opens a peer's database once, on first use, unmigrated; refuses other services and, on PostgreSQL, a peer without a URL", async () => {
    const store = await openCliStore({
      service: 'notes',
      cli: 'notes cli',
      migrationsDir: join(dir, 'migrations'),
      sharedCache: false,
      peers: ['people', 'pets'],
      environment: { NOTES_DATABASE_URL: own.url, PEOPLE_DATABASE_URL: peer.url, DATA_DIR: join(dir, 'unused') },
    });
    try {
      const people = await store.peerDb('people');
      expect(people.kind).toBe('postgres');
      expect(await store.peerDb('people')).toBe(people);
      expect((await people.query("SELECT to_regclass('notes') AS notes")).rows).toEqual([{ notes: null }]);
      await expect(store.peerDb('billing')).rejects.toThrow('notes cli does not read the billing database');
      await expect(store.peerDb('pets')).rejects.toThrow('PETS_DATABASE_URL (or DATABASE_URL) is not set');
    } finally {
      await store.close();
    }
  });
});
