import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PGlite, type Results } from '@electric-sql/pglite';
import type { Logger } from '@acs/logger';
import type { Connection, SessionDb } from '../connection.js';
import type { QueryResult, Queryable } from '../db.js';
import { runTransaction, scopedQueryable } from '../transaction.js';
import { PGLITE_PARSERS } from '../values/type-parsers.js';
import { SerialQueue } from './serial-queue.js';

export async function openPglite(dataDir: string | undefined, logger: Logger): Promise<SessionDb> {
  const dir = dataDir === undefined ? undefined : resolve(dataDir);
  if (dir) await mkdir(dir, { recursive: true });
  const pglite = await PGlite.create({ dataDir: dir, parsers: PGLITE_PARSERS });
  logger.info({ dataDir: dir ?? 'in memory' }, 'using embedded PGlite');
  return new PgliteDb(pglite, logger);
}

function toResult<R>(result: Results<R>): QueryResult<R> {
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}

/**
 * Our own queue rather than PGlite's transaction(): it also has to cover a migration run, which
 * holds the connection across several transactions, and it catches the re-entrant deadlock.
 */
class PgliteDb implements SessionDb {
  readonly kind = 'pglite' as const;
  readonly #pglite: PGlite;
  readonly #logger: Logger;
  readonly #queue = new SerialQueue();
  readonly #conn: Connection;
  #closing: Promise<void> | undefined;

  constructor(pglite: PGlite, logger: Logger) {
    this.#pglite = pglite;
    this.#logger = logger;
    this.#conn = {
      query: async <R>(sql: string, params?: readonly unknown[]) => toResult<R>(await pglite.query<R>(sql, params ? [...params] : undefined)),
      exec: async (script) => (await pglite.exec(script)).at(-1)?.command,
    };
  }

  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    return this.#run(() => this.#conn.query<R>(sql, params));
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#run(() =>
      runTransaction(this.#conn, async (tx) => {
        const scope = scopedQueryable(tx);
        try {
          return await fn(scope.tx);
        } finally {
          scope.end();
        }
      }, (err) => this.#logger.error({ err }, 'PGlite ROLLBACK failed')));
  }

  withSession<T>(fn: (conn: Connection) => Promise<T>): Promise<T> {
    return this.#run(() => fn(this.#conn));
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  /** Queued work finishes first; PGlite's close() flushes a persistent data directory. */
  close(): Promise<void> {
    this.#closing ??= this.#queue.run(() => this.#pglite.close());
    return this.#closing;
  }

  #run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#closing !== undefined) return Promise.reject(new Error('The embedded database is closed'));
    return this.#queue.run(task);
  }
}
