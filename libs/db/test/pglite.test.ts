import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openDatabase, type Db } from '@acs/db';
import { captureLogger, sleep, tempDir } from './helpers.js';

describe('PGlite in memory', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase({ logger: captureLogger().logger });
  });
  afterAll(async () => {
    await db.close();
  });

  it('runs concurrent transactions one after another, never interleaved', async () => {
    await db.query('CREATE TABLE steps (seq serial PRIMARY KEY, who text NOT NULL)');
    // Each transaction yields to the event loop between its statements, the moment another
    // caller would slip in if access were not serialized.
    const work = (who: string) =>
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO steps (who) VALUES ($1)', [`${who}:begin`]);
        await sleep(15);
        const {
          rows: [seen],
        } = await tx.query<{ n: number }>('SELECT count(*) AS n FROM steps');
        await sleep(15);
        await tx.query('INSERT INTO steps (who) VALUES ($1)', [`${who}:end`]);
        return seen?.n;
      });
    const failing = () =>
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO steps (who) VALUES ('failing:begin')");
        await sleep(15);
        throw new Error('boom');
      });
    // Started in this order, all before any of them has run a statement.
    const results = await Promise.allSettled([
      work('a'),
      db.query("INSERT INTO steps (who) VALUES ('lone query')"),
      failing(),
      work('b'),
      work('c'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    // Each transaction saw exactly the rows committed before it began, plus its own first one.
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'failed'))).toEqual([1, expect.anything(), 'failed', 4, 6]);

    const { rows } = await db.query<{ who: string }>('SELECT who FROM steps ORDER BY seq');
    // Queued in call order; the failed transaction left nothing behind.
    expect(rows.map((r) => r.who)).toEqual(['a:begin', 'a:end', 'lone query', 'b:begin', 'b:end', 'c:begin', 'c:end']);
  });

  it('rejects a query on the Db from inside its own transaction instead of deadlocking', async () => {
    await expect(db.transaction(async () => db.query('SELECT 1'))).rejects.toThrow(/use the transaction's `tx`/);
    await expect(db.transaction(async () => db.transaction(async () => 1))).rejects.toThrow(/already held/);
    // Work started inside a transaction but run after it ended is fine.
    let later: Promise<unknown> | undefined;
    await db.transaction(async () => {
      later = sleep(20).then(() => db.query('SELECT 1 AS ok'));
    });
    await expect(later).resolves.toMatchObject({ rows: [{ ok: 1 }] });
  });

  it('accepts many concurrent plain queries', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => db.query<{ i: number }>('SELECT $1::int AS i', [i])));
    expect(results.map((r) => r.rows[0]?.i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });
});

describe('PGlite lifecycle', () => {
  it('keeps data in its data directory across a close and reopen', async () => {
    const tmp = await tempDir('pglite');
    const dataDir = join(tmp.path, 'nested', 'pgdata'); // does not exist yet
    try {
      const first = await openDatabase({ dataDir, logger: captureLogger().logger });
      await first.query('CREATE TABLE kept (id int PRIMARY KEY, at timestamptz NOT NULL)');
      await first.transaction(async (tx) => {
        await tx.query('INSERT INTO kept VALUES ($1, $2)', [1, new Date('2024-05-06T07:08:09.123Z')]);
      });
      await first.close();
      await expect(access(dataDir)).resolves.toBeUndefined();

      const { logger, lines } = captureLogger();
      const second = await openDatabase({ dataDir, logger });
      try {
        expect(second.kind).toBe('pglite');
        expect((await second.query('SELECT id, at FROM kept')).rows).toEqual([{ id: 1, at: new Date('2024-05-06T07:08:09.123Z') }]);
        expect(lines).toContainEqual(expect.objectContaining({ msg: 'using embedded PGlite', dataDir }));
      } finally {
        await second.close();
      }
    } finally {
      await tmp.remove();
    }
  });

  it('finishes queued work before closing, then refuses new work', async () => {
    const db = await openDatabase({ logger: captureLogger().logger });
    const queued = db.transaction(async (tx) => {
      await sleep(20);
      return (await tx.query<{ ok: number }>('SELECT 1 AS ok')).rows[0]?.ok;
    });
    const closed = db.close();
    await expect(queued).resolves.toBe(1);
    await closed;
    await expect(db.query('SELECT 1')).rejects.toThrow(/closed/);
    await expect(db.close()).resolves.toBeUndefined();
  });
});
