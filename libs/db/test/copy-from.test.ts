import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openDatabase, sqlStateOf, type Db, type Queryable } from '@acs/db';
import { createTestDatabase, type TestDatabase } from '@acs/testing';
import { captureLogger } from './helpers.js';

/** COPY ... FROM STDIN on PostgreSQL transactions (the catalog import's bulk path). */
describe('copyFrom', () => {
  let database: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    database = await createTestDatabase('db_copy_from');
    db = await openDatabase({ url: database.url, logger: captureLogger().logger, poolSize: 2 });
    await db.query('CREATE TABLE copied (n integer PRIMARY KEY, label text NOT NULL)');
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('copies text chunks (rows may span chunks) inside a transaction and answers the row count', async () => {
    const copied = await db.transaction(async (tx) =>
      tx.copyFrom!('COPY copied (n, label) FROM STDIN', ['1\tone\n2\tt', 'wo\n', '3\tthree\n']),
    );
    expect(copied).toBe(3);
    const { rows } = await db.query<{ n: number; label: string }>('SELECT n, label FROM copied ORDER BY n');
    expect(rows).toEqual([
      { n: 1, label: 'one' },
      { n: 2, label: 'two' },
      { n: 3, label: 'three' },
    ]);
  });

  it("rejects with the server's SQLSTATE, and the transaction leaves nothing behind", async () => {
    const failed = db.transaction(async (tx) => {
      await tx.copyFrom!('COPY copied (n, label) FROM STDIN', ['10\tten\n']);
      return tx.copyFrom!('COPY copied (n, label) FROM STDIN', ['11\televen\n1\tagain\n']);
    });
    await expect(failed).rejects.toThrow();
    expect(sqlStateOf(await failed.catch((err: unknown) => err))).toBe('23505');
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM copied WHERE n >= 10')).rows[0]!.n).toBe(0);
    // The connection went back to the pool healthy.
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
  });

  it('exists only on transaction handles, and refuses once the transaction has ended', async () => {
    expect(db.copyFrom).toBeUndefined();
    let kept: Queryable | undefined;
    await db.transaction(async (tx) => {
      kept = tx;
    });
    await expect(kept!.copyFrom!('COPY copied (n, label) FROM STDIN', ['20\ttwenty\n'])).rejects.toThrow(
      'This transaction has already finished',
    );
  });
});
