import pg from 'pg';
import type { Logger } from '@acs/logger';
import type { Connection, SessionDb } from '../connection.js';
import type { QueryResult, Queryable } from '../db.js';
import { runCallerTransaction } from '../transaction.js';
import { clientConnection, toResult } from './client-connection.js';
import { markIfConnectionLost } from './connection-loss.js';
import { redactUrl } from './connection-url.js';
import { ensureDatabase } from './ensure-database.js';
import { POOL_TYPES } from './pool-types.js';
import { postgresTarget, tracedStatement, type DbTarget } from '../traced-statement.js';

const CONNECT_TIMEOUT_MS = 10_000;

/** `waitMs`: how long to wait for a PostgreSQL that is not reachable yet (ensure-database.ts); 0: fail at once. */
export async function openPostgres(url: string, logger: Logger, poolSize: number, waitMs = 0): Promise<SessionDb> {
  await ensureDatabase(url, logger, waitMs);
  // A request waits at most CONNECT_TIMEOUT_MS for a connection, then fails (503) instead of hanging.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, types: POOL_TYPES });
  // Without a listener, an idle connection dropped by the server (restart, failover) would be an
  // unhandled 'error' event and kill the process; the pool already replaces the connection.
  pool.on('error', (err) => logger.error({ err }, 'idle PostgreSQL connection failed; the pool replaces it'));
  logger.info({ database: redactUrl(url), poolSize }, 'using PostgreSQL');
  return new PostgresDb(pool, logger, postgresTarget(url));
}

class PostgresDb implements SessionDb {
  readonly kind = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #logger: Logger;
  readonly #target: DbTarget;
  #closing: Promise<void> | undefined;

  constructor(pool: pg.Pool, logger: Logger, target: DbTarget) {
    this.#pool = pool;
    this.#logger = logger;
    this.#target = target;
  }

  async query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    try {
      const result = await tracedStatement(this.#target, sql, true, () => this.#pool.query(sql, params ? [...params] : undefined));
      return toResult<R>(result);
    } catch (err) {
      throw markIfConnectionLost(err);
    }
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#withClient(false, (conn, markBroken) => runCallerTransaction(conn, fn, markBroken));
  }

  /** The connection is discarded when fn throws: it may still hold fn's session-level locks. */
  withSession<T>(fn: (conn: Connection) => Promise<T>): Promise<T> {
    return this.#withClient(true, (conn) => fn(conn));
  }

  async ping(): Promise<void> {
    await this.#pool.query('SELECT 1');
  }

  close(): Promise<void> {
    this.#closing ??= this.#pool.end();
    return this.#closing;
  }

  async #withClient<T>(discardOnError: boolean, fn: (conn: Connection, markBroken: (err: unknown) => void) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect().catch((err: unknown) => Promise.reject(markIfConnectionLost(err)));
    let broken: Error | undefined;
    const markBroken = (err: unknown): void => {
      broken ??= err instanceof Error ? err : new Error(String(err));
    };
    // The pool listens for errors only on idle clients; between two statements of ours the
    // client is checked out, and a dropped connection would otherwise crash the process.
    const onError = (err: Error): void => {
      this.#logger.error({ err }, 'PostgreSQL connection failed while in use');
      markBroken(err);
    };
    client.on('error', onError);
    try {
      return await fn(clientConnection(client, this.#target), markBroken);
    } catch (err) {
      if (discardOnError) markBroken(err);
      throw markIfConnectionLost(err);
    } finally {
      client.off('error', onError);
      // Releasing with an error destroys the connection instead of handing it to the next caller.
      client.release(broken);
    }
  }
}
