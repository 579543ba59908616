import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { MigrationError, migrate, openDatabase, openServiceDatabase } from '@acs/db';
import { createTestDatabase, testServerUrl } from '@acs/testing';
import { captureLogger, migrationsDir, tempDir } from './helpers.js';

const GOOD = { '001_things.sql': 'CREATE TABLE things (id bigserial PRIMARY KEY);\n' };
const BAD = { ...GOOD, '002_broken.sql': 'ALTER TABLE no_such_table ADD COLUMN x int;\n' };

async function connectionsTo(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: testServerUrl('DATABASE_URL') });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [
      new URL(url).pathname.slice(1),
    ]);
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

describe('openServiceDatabase', () => {
  it('without a URL: its own schema of the one PGlite in DATA_DIR/pglite, migrated', async () => {
    const [data, migrations] = await Promise.all([tempDir('service-db'), migrationsDir(GOOD)]);
    try {
      const db = await openServiceDatabase({
        service: 'things',
        url: undefined,
        dataDir: data.path,
        migrationsDir: migrations.path,
        logger: captureLogger().logger,
      });
      try {
        expect(db.kind).toBe('pglite');
        expect((await db.query('SELECT count(*)::int AS n FROM things')).rows).toEqual([{ n: 0 }]);
      } finally {
        await db.close();
      }
      expect(existsSync(join(data.path, 'pglite', 'PG_VERSION'))).toBe(true);
      expect(existsSync(join(data.path, 'things'))).toBe(false);
    } finally {
      await Promise.all([data.remove(), migrations.remove()]);
    }
  }, 120_000); // PGlite's first start compiles its WebAssembly: seconds alone, more on a busy machine

  it("without a URL: services share one PGlite, each in its own schema, and cannot read each other's tables", async () => {
    const [data, migrations] = await Promise.all([tempDir('service-db'), migrationsDir(GOOD)]);
    const logger = captureLogger().logger;
    try {
      const [a, b] = await Promise.all([
        openServiceDatabase({ service: 'alpha', dataDir: data.path, migrationsDir: migrations.path, logger }),
        openServiceDatabase({ service: 'beta', dataDir: data.path, migrationsDir: migrations.path, logger }),
      ]);
      try {
        await a.query('INSERT INTO things DEFAULT VALUES');
        await a.transaction(async (tx) => {
          await tx.query('INSERT INTO things DEFAULT VALUES');
        });
        expect((await a.query('SELECT count(*)::int AS n FROM things')).rows).toEqual([{ n: 2 }]);
        expect((await b.query('SELECT count(*)::int AS n FROM things')).rows).toEqual([{ n: 0 }]);
        await expect(b.query('SELECT * FROM alpha.things')).rejects.toMatchObject({ code: '42501' });
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
      // Closed last: the files are flushed, and a new start finds alpha's rows where they were.
      const again = await openServiceDatabase({ service: 'alpha', dataDir: data.path, migrationsDir: migrations.path, logger });
      expect((await again.query('SELECT count(*)::int AS n FROM things')).rows).toEqual([{ n: 2 }]);
      await again.close();
    } finally {
      await Promise.all([data.remove(), migrations.remove()]);
    }
  }, 120_000);

  it('carries over the data an older version kept in DATA_DIR/<service>, once, and keeps the old folder renamed', async () => {
    const [data, migrations] = await Promise.all([tempDir('service-db'), migrationsDir(GOOD)]);
    const logger = captureLogger().logger;
    try {
      const old = await openDatabase({ dataDir: join(data.path, 'things'), logger });
      await migrate(old, migrations.path, logger);
      await old.query('INSERT INTO things DEFAULT VALUES');
      await old.query('INSERT INTO things DEFAULT VALUES');
      await old.close();
      await writeFile(join(data.path, 'things', 'own-key.json'), '{}');

      const db = await openServiceDatabase({ service: 'things', dataDir: data.path, migrationsDir: migrations.path, logger });
      try {
        expect((await db.query('SELECT id FROM things ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
        // The sequence came along: the next row does not collide with a carried-over one.
        expect((await db.query('INSERT INTO things DEFAULT VALUES RETURNING id')).rows).toEqual([{ id: 3 }]);
      } finally {
        await db.close();
      }
      // PostgreSQL's files moved aside; the service's own files stay where it looks for them.
      expect(existsSync(join(data.path, 'things', 'PG_VERSION'))).toBe(false);
      expect(existsSync(join(data.path, 'things', 'own-key.json'))).toBe(true);
      expect(existsSync(join(data.path, 'things.carried-over', 'PG_VERSION'))).toBe(true);
    } finally {
      await Promise.all([data.remove(), migrations.remove()]);
    }
  }, 180_000);

  it('with a URL: that PostgreSQL database, migrated; a failed migration leaves no connection open', async () => {
    const [database, good, bad] = await Promise.all([createTestDatabase('service_db'), migrationsDir(GOOD), migrationsDir(BAD)]);
    const logger = captureLogger().logger;
    try {
      const db = await openServiceDatabase({
        service: 'things',
        url: database.url,
        dataDir: '/nonexistent',
        migrationsDir: good.path,
        logger,
        poolSize: 1,
      });
      expect(db.kind).toBe('postgres');
      await db.query('INSERT INTO things DEFAULT VALUES');
      await db.close();

      await expect(
        openServiceDatabase({ service: 'things', url: database.url, dataDir: '/nonexistent', migrationsDir: bad.path, logger }),
      ).rejects.toBeInstanceOf(MigrationError);
      expect(await connectionsTo(database.url)).toBe(0);
    } finally {
      await Promise.all([database.drop(), good.remove(), bad.remove()]);
    }
  });
});
