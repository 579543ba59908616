import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { migrate, MigrationError, openDatabase, pendingMigrations, type Db } from '@acs/db';
import { createTestDatabase } from '@acs/testing';
import { captureLogger, migrationsDir, openKind } from './helpers.js';

const FILES = {
  // Out of order on purpose, multi-statement, and 002 needs 001's table.
  '002_add_label.sql': "ALTER TABLE things ADD COLUMN label text;\nINSERT INTO ran VALUES ('002');\n",
  '001_create_things.sql':
    "CREATE TABLE things (id bigserial PRIMARY KEY);\nCREATE TABLE ran (name text NOT NULL);\nINSERT INTO ran VALUES ('001');\n",
  '010_index_label.sql': "CREATE INDEX things_label ON things (label);\nINSERT INTO ran VALUES ('010');\n",
  'README.md': 'not a migration',
};
const NAMES = ['001_create_things.sql', '002_add_label.sql', '010_index_label.sql'];

async function ranOrder(db: Db): Promise<string[]> {
  return (await db.query<{ name: string }>('SELECT name FROM ran')).rows.map((r) => r.name);
}

describe.each(['postgres', 'pglite'] as const)('migrations on %s', (kind) => {
  async function setup(files: Record<string, string> = FILES) {
    const { logger, lines } = captureLogger();
    const [opened, dir] = await Promise.all([openKind(kind, logger), migrationsDir(files)]);
    return {
      db: opened.db,
      dir: dir.path,
      logger,
      lines,
      cleanup: async () => {
        await opened.cleanup();
        await dir.remove();
      },
    };
  }

  it('applies the .sql files in name order, records and logs each', async () => {
    const { db, dir, logger, lines, cleanup } = await setup();
    try {
      expect(await pendingMigrations(db, dir)).toEqual(NAMES);
      expect(await migrate(db, dir, logger)).toEqual({ applied: NAMES });
      expect(await ranOrder(db)).toEqual(['001', '002', '010']);
      expect(await pendingMigrations(db, dir)).toEqual([]);

      const { rows } = await db.query<{ name: string; checksum: string; applied_at: Date }>(
        'SELECT name, checksum, applied_at FROM schema_migrations ORDER BY name',
      );
      expect(rows.map((r) => r.name)).toEqual(NAMES);
      for (const row of rows) {
        expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
        expect(row.applied_at).toBeInstanceOf(Date);
      }
      expect(lines.filter((l) => l.msg === 'migration applied').map((l) => l.migration)).toEqual(NAMES);
      // Each file is detail; the summary is the one info line a start shows.
      expect(lines.filter((l) => l.msg === 'migration applied').every((l) => l.level === 'debug')).toBe(true);
      expect(lines).toContainEqual(expect.objectContaining({ msg: 'migrations applied', applied: NAMES, level: 'info' }));
    } finally {
      await cleanup();
    }
  });

  it('is idempotent and later applies only new files', async () => {
    const { db, dir, logger, lines, cleanup } = await setup();
    try {
      await migrate(db, dir, logger);
      expect(await migrate(db, dir, logger)).toEqual({ applied: [] });
      expect(lines.at(-1)).toMatchObject({ msg: 'database schema is up to date', applied: [], level: 'debug' });

      await writeFile(join(dir, '011_more.sql'), "INSERT INTO ran VALUES ('011')");
      expect(await pendingMigrations(db, dir)).toEqual(['011_more.sql']);
      expect(await migrate(db, dir, logger)).toEqual({ applied: ['011_more.sql'] });
      expect(await ranOrder(db)).toEqual(['001', '002', '010', '011']);
    } finally {
      await cleanup();
    }
  });

  it('refuses to run when an applied file was edited, and applies nothing', async () => {
    const { db, dir, logger, cleanup } = await setup();
    try {
      await migrate(db, dir, logger);
      await writeFile(join(dir, '002_add_label.sql'), 'ALTER TABLE things ADD COLUMN label varchar(10);');
      await writeFile(join(dir, '020_new.sql'), "INSERT INTO ran VALUES ('020')");
      const run = migrate(db, dir, logger);
      await expect(run).rejects.toBeInstanceOf(MigrationError);
      await expect(run).rejects.toThrow(/Checksum mismatch: migration\(s\) 002_add_label\.sql changed after being applied/);
      expect(await ranOrder(db)).toEqual(['001', '002', '010']);
    } finally {
      await cleanup();
    }
  });

  it('treats CRLF line endings as the same file', async () => {
    const { db, dir, logger, cleanup } = await setup();
    try {
      await migrate(db, dir, logger);
      await writeFile(join(dir, '001_create_things.sql'), FILES['001_create_things.sql'].replace(/\n/g, '\r\n'));
      expect(await migrate(db, dir, logger)).toEqual({ applied: [] });
    } finally {
      await cleanup();
    }
  });

  it('rolls back a failing file with its row, keeps earlier ones, and can resume', async () => {
    const { db, dir, logger, cleanup } = await setup({
      '001_ok.sql': "CREATE TABLE ran (name text NOT NULL); INSERT INTO ran VALUES ('001');",
      '002_broken.sql': "CREATE TABLE half (id int); INSERT INTO ran VALUES ('002'); SELECT no_such_column FROM half;",
      '003_after.sql': "INSERT INTO ran VALUES ('003');",
    });
    try {
      await expect(migrate(db, dir, logger)).rejects.toThrow(
        /Migration 002_broken\.sql failed and was rolled back: column "no_such_column" does not exist/,
      );
      expect(await ranOrder(db)).toEqual(['001']);
      expect((await db.query("SELECT to_regclass('half') IS NULL AS gone")).rows).toEqual([{ gone: true }]);
      expect(await pendingMigrations(db, dir)).toEqual(['002_broken.sql', '003_after.sql']);

      // Fixed file, next start: the lock was released, the run resumes where it stopped.
      await writeFile(join(dir, '002_broken.sql'), "INSERT INTO ran VALUES ('002');");
      expect(await migrate(db, dir, logger)).toEqual({ applied: ['002_broken.sql', '003_after.sql'] });
      expect(await ranOrder(db)).toEqual(['001', '002', '003']);
    } finally {
      await cleanup();
    }
  });

  it('fails on a missing directory', async () => {
    const { db, dir, logger, cleanup } = await setup();
    try {
      await expect(migrate(db, join(dir, 'nope'), logger)).rejects.toThrow(/ENOENT/);
      await expect(pendingMigrations(db, join(dir, 'nope'))).rejects.toThrow(/ENOENT/);
    } finally {
      await cleanup();
    }
  });
});

describe('migrations from replicas starting together (PostgreSQL)', () => {
  it('applies each migration exactly once, without errors', async () => {
    const database = await createTestDatabase('db_replicas');
    // Not idempotent on purpose: a second run of 001 or 003 would fail on CREATE TABLE, and 002
    // is slow so that the second replica arrives while the first is still migrating.
    const dir = await migrationsDir({
      '001_runs.sql': "CREATE TABLE runs (migration text NOT NULL); INSERT INTO runs VALUES ('001');",
      '002_slow.sql': "SELECT pg_sleep(0.3); INSERT INTO runs VALUES ('002');",
      '003_more.sql': "CREATE TABLE more (id int); INSERT INTO runs VALUES ('003');",
    });
    const replicas = await Promise.all(
      [0, 1].map(async () => {
        const { logger } = captureLogger();
        return { db: await openDatabase({ url: database.url, logger }), logger };
      }),
    );
    try {
      const results = await Promise.all(replicas.map(({ db, logger }) => migrate(db, dir.path, logger)));
      expect(results.flatMap((r) => r.applied).sort()).toEqual(['001_runs.sql', '002_slow.sql', '003_more.sql']);
      const [first] = replicas;
      if (!first) throw new Error('no replica');
      expect((await first.db.query('SELECT migration, count(*) AS n FROM runs GROUP BY migration ORDER BY migration')).rows).toEqual([
        { migration: '001', n: 1 },
        { migration: '002', n: 1 },
        { migration: '003', n: 1 },
      ]);
      expect((await first.db.query('SELECT count(*) AS n FROM schema_migrations')).rows).toEqual([{ n: 3 }]);
    } finally {
      await Promise.all(replicas.map(({ db }) => db.close()));
      await dir.remove();
      await database.drop();
    }
  });
});
