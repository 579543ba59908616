import type { Logger } from '@acs/logger';

/** Rows of one statement; `rowCount` is what the command reports (rows returned or changed), 0 for DDL. */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/**
 * One parameterized statement at a time: put values in `params` ($1, $2, ...), never in the text.
 * PGlite accepts exactly one statement per call, so the same holds on PostgreSQL.
 */
export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /**
   * `COPY ... FROM STDIN` with the data as text chunks (each ending on a line end); resolves to the
   * rows copied. PostgreSQL inside a transaction only: absent on PGlite and on pooled handles, so
   * callers keep another way (a JSON parameter) for those.
   */
  copyFrom?(sql: string, chunks: Iterable<string>): Promise<number>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /**
   * BEGIN, `fn`, COMMIT; ROLLBACK when `fn` throws. Use only `tx` inside `fn`: on PGlite the
   * outer handle is busy with this transaction, and `tx` stops working once the transaction ends.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Resolves when a trivial query succeeds (for /readyz). */
  ping(): Promise<void>;
  /** Waits for queued work, then releases connections (or closes PGlite, flushing its files). */
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL connection URL; unset or empty selects embedded PGlite (docs/architecture.md, decision 6). */
  url?: string;
  /** PGlite's data directory, created when missing; unset keeps the database in memory. */
  dataDir?: string;
  logger: Logger;
  /** Connections in the PostgreSQL pool (default 10); PGlite always has exactly one. */
  poolSize?: number;
  /** How long to wait for a PostgreSQL that is not reachable yet (a service's start: DATABASE_WAIT_SECONDS); default 0, fail at once. */
  waitMs?: number;
}
