import type { Connection } from './connection.js';
import type { Queryable } from './db.js';

/**
 * BEGIN / fn / COMMIT on one connection, ROLLBACK when fn throws. Shared by both kinds so they
 * behave alike. If ROLLBACK itself fails the connection is unusable: `onBroken` lets the caller
 * discard it, and the caller still sees fn's error, the one that explains what happened.
 */
export async function runTransaction<T>(
  conn: Connection,
  fn: (tx: Connection) => Promise<T>,
  onBroken: (err: unknown) => void = () => {},
): Promise<T> {
  await conn.exec('BEGIN');
  let result: T;
  try {
    result = await fn(conn);
  } catch (err) {
    await conn.exec('ROLLBACK').catch(onBroken);
    throw err;
  }
  // PostgreSQL answers COMMIT of a failed transaction with the tag ROLLBACK and no error; that
  // happens when fn caught a statement's error and went on. Losing the writes silently is worse.
  const tag = await conn.exec('COMMIT');
  if (tag === 'ROLLBACK') {
    throw new Error('The transaction was rolled back: a statement inside it failed and its error was caught');
  }
  return result;
}

/**
 * What the caller's fn gets: queries only, and only until the transaction ends. Afterwards a
 * pool client belongs to someone else, so a late query must fail instead of running there.
 */
function scopedQueryable(conn: Queryable): { tx: Queryable; end(): void } {
  let open = true;
  const finished = (): Promise<never> => Promise.reject(new Error('This transaction has already finished'));
  const tx: Queryable = {
    query: (sql, params) => (open ? conn.query(sql, params) : finished()),
  };
  const { copyFrom } = conn;
  if (copyFrom) tx.copyFrom = (sql, chunks) => (open ? copyFrom.call(conn, sql, chunks) : finished());
  return {
    tx,
    end: () => {
      open = false;
    },
  };
}

/**
 * What `Db.transaction` runs on a connection it holds: fn gets a queryable that stops working when
 * the transaction ends, inside BEGIN ... COMMIT (ROLLBACK when fn throws).
 */
export function runCallerTransaction<T>(conn: Connection, fn: (tx: Queryable) => Promise<T>, onBroken: (err: unknown) => void): Promise<T> {
  return runTransaction(
    conn,
    async (tx) => {
      const scope = scopedQueryable(tx);
      try {
        return await fn(scope.tx);
      } finally {
        scope.end();
      }
    },
    onBroken,
  );
}
