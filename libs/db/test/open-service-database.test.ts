import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { MigrationError, openServiceDatabase } from '@acs/db';
import { createTestDatabase, testServerUrl } from '@acs/testing';
import { captureLogger, migrationsDir, tempDir } from './helpers.js';

const GOOD = { '001_things.sql': 'CREATE TABLE things (id bigserial PRIMARY KEY);\n' };
const BAD = { ...GOOD, '002_broken.sql': 'ALTER TABLE no_such_table ADD COLUMN x int;\n' };

async function connectionsTo(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: testServerUrl('DATABASE_URL') });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [new URL(url).pathname.slice(1)]);
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

describe('openServiceDatabase', () => {
  it('without a URL: PGlite in DATA_DIR/<service>, migrated', async () => {
    const [data, migrations] = await Promise.all([tempDir('service-db'), migrationsDir(GOOD)]);
    try {
      const db = await openServiceDatabase({ service: 'things', url: undefined, dataDir: data.path, migrationsDir: migrations.path, logger: captureLogger().logger });
      try {
        expect(db.kind).toBe('pglite');
        expect((await db.query('SELECT count(*)::int AS n FROM things')).rows).toEqual([{ n: 0 }]);
      } finally {
        await db.close();
      }
      expect(existsSync(join(data.path, 'things'))).toBe(true);
    } finally {
      await Promise.all([data.remove(), migrations.remove()]);
    }
  }, 120_000); // PGlite's first start compiles its WebAssembly: seconds alone, more on a busy machine

  it('with a URL: that PostgreSQL database, migrated; a failed migration leaves no connection open', async () => {
    const [database, good, bad] = await Promise.all([createTestDatabase('service_db'), migrationsDir(GOOD), migrationsDir(BAD)]);
    const logger = captureLogger().logger;
    try {
      const db = await openServiceDatabase({ service: 'things', url: database.url, dataDir: '/nonexistent', migrationsDir: good.path, logger, poolSize: 1 });
      expect(db.kind).toBe('postgres');
      await db.query('INSERT INTO things DEFAULT VALUES');
      await db.close();

      await expect(openServiceDatabase({ service: 'things', url: database.url, dataDir: '/nonexistent', migrationsDir: bad.path, logger })).rejects.toBeInstanceOf(MigrationError);
      expect(await connectionsTo(database.url)).toBe(0);
    } finally {
      await Promise.all([database.drop(), good.remove(), bad.remove()]);
    }
  });
});
