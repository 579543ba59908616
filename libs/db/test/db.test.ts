import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Db } from '@acs/db';
import { openKind } from './helpers.js';

// The behaviour every caller relies on, on both kinds. PostgreSQL: a fresh database per test.
// PGlite: one in-memory instance per kind (it takes ~2 s to start), each test its own table.
describe.each(['postgres', 'pglite'] as const)('Db on %s', (kind) => {
  let shared: { db: Db; cleanup(): Promise<void> } | undefined;
  beforeAll(async () => {
    if (kind === 'pglite') shared = await openKind('pglite');
  });
  afterAll(async () => {
    await shared?.cleanup();
  });

  async function withDb(fn: (db: Db) => Promise<void>): Promise<void> {
    if (shared) return fn(shared.db);
    const own = await openKind(kind);
    try {
      await fn(own.db);
    } finally {
      await own.cleanup();
    }
  }

  it('reports its kind and answers ping', () =>
    withDb(async (db) => {
      expect(db.kind).toBe(kind);
      await expect(db.ping()).resolves.toBeUndefined();
    }));

  it('binds parameters as values, never as SQL', () =>
    withDb(async (db) => {
      await db.query('CREATE TABLE params_t (id serial PRIMARY KEY, name text NOT NULL)');
      const hostile = "x'); DROP TABLE params_t; --";
      const inserted = await db.query<{ id: number }>('INSERT INTO params_t (name) VALUES ($1), ($2) RETURNING id', [hostile, 'plain']);
      expect(inserted.rowCount).toBe(2);
      expect(inserted.rows.map((r) => r.id)).toEqual([1, 2]);

      const found = await db.query<{ name: string }>('SELECT name FROM params_t WHERE name = $1', [hostile]);
      expect(found.rows).toEqual([{ name: hostile }]);
      const updated = await db.query('UPDATE params_t SET name = upper(name) WHERE id = ANY($1::int[])', [[1, 2]]);
      expect(updated.rowCount).toBe(2);
      expect((await db.query('CREATE INDEX params_t_name ON params_t (name)')).rowCount).toBe(0);
    }));

  it('commits a transaction and returns its result', () =>
    withDb(async (db) => {
      await db.query('CREATE TABLE commit_t (v int)');
      const result = await db.transaction(async (tx) => {
        await tx.query('INSERT INTO commit_t VALUES ($1)', [1]);
        await tx.query('INSERT INTO commit_t VALUES ($1)', [2]);
        return 'done';
      });
      expect(result).toBe('done');
      expect((await db.query('SELECT v FROM commit_t ORDER BY v')).rows).toEqual([{ v: 1 }, { v: 2 }]);
    }));

  it('rolls back when the callback throws and rethrows its error', () =>
    withDb(async (db) => {
      await db.query('CREATE TABLE rollback_t (v int)');
      const failure = new Error('business rule broken');
      await expect(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO rollback_t VALUES (1)');
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect((await db.query('SELECT count(*) AS n FROM rollback_t')).rows).toEqual([{ n: 0 }]);
    }));

  it('rolls back when a statement fails, keeping the database error', () =>
    withDb(async (db) => {
      await db.query('CREATE TABLE stmt_t (v int PRIMARY KEY)');
      await expect(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO stmt_t VALUES (1)');
          await tx.query('INSERT INTO stmt_t VALUES (1)');
        }),
      ).rejects.toMatchObject({ code: '23505' });
      expect((await db.query('SELECT count(*) AS n FROM stmt_t')).rows).toEqual([{ n: 0 }]);
    }));

  it("refuses to commit when a failed statement's error was swallowed", () =>
    withDb(async (db) => {
      await db.query('CREATE TABLE swallow_t (v int PRIMARY KEY)');
      await expect(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO swallow_t VALUES (1)');
          await tx.query('INSERT INTO swallow_t VALUES (1)').catch(() => undefined);
        }),
      ).rejects.toThrow(/rolled back/);
      expect((await db.query('SELECT count(*) AS n FROM swallow_t')).rows).toEqual([{ n: 0 }]);
    }));

  it('makes the transaction handle unusable once the transaction ends', () =>
    withDb(async (db) => {
      const leaked = await db.transaction(async (tx) => tx);
      await expect(leaked.query('SELECT 1')).rejects.toThrow(/already finished/);
    }));

  it('fails an int8 beyond 2^53 instead of losing digits, and stays usable', () =>
    withDb(async (db) => {
      await expect(db.query("SELECT '9007199254740993'::int8 AS big")).rejects.toThrow(RangeError);
      expect((await db.query("SELECT '9007199254740991'::int8 AS max, '9007199254740993'::int8::text AS big")).rows).toEqual([
        { max: Number.MAX_SAFE_INTEGER, big: '9007199254740993' },
      ]);
    }));
});
