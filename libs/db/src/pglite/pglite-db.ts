import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PGlite, type Results } from '@electric-sql/pglite';
import type { Logger } from '@acs/logger';
import type { Connection, SessionDb } from '../connection.js';
import type { QueryResult, Queryable } from '../db.js';
import { runCallerTransaction } from '../transaction.js';
import { PGLITE_PARSERS } from '../values/type-parsers.js';
import { SerialQueue } from './serial-queue.js';
import { pgliteTemplateFor } from './pglite-template.js';
import { tighten } from '../data-dir-privacy.js';
import { tracedStatement, type DbTarget } from '../traced-statement.js';

/**
 * PostgreSQL's defaults size shared buffers for a server (128 MB); an embedded database of a
 * development system needs far less, and each MB here is resident memory of `npm start`.
 */
const EMBEDDED_SETTINGS = ['shared_buffers=16MB'];

export async function createPglite(dataDir: string | undefined): Promise<PGlite> {
  const dir = dataDir === undefined ? undefined : resolve(dataDir);
  if (dir) await mkdir(dir, { recursive: true, mode: 0o700 });
  const template = await pgliteTemplateFor(dir);
  const pglite = await PGlite.create({
    dataDir: dir,
    parsers: PGLITE_PARSERS,
    postgresqlconf: EMBEDDED_SETTINGS,
    ...(template ? { loadDataDir: template } : {}),
  });
  // PGlite writes the files of a new database with mode 0666 whatever the umask (files it makes later
  // follow the umask): they hold API keys and password hashes, so they become the owner's alone.
  if (dir) await tighten(dir);
  return pglite;
}

export async function openPglite(dataDir: string | undefined, logger: Logger): Promise<SessionDb> {
  const pglite = await createPglite(dataDir);
  logger.debug({ dataDir: dataDir === undefined ? 'in memory' : resolve(dataDir) }, 'using embedded PGlite');
  return new PgliteDb(pglite, logger, { namespace: 'postgres' });
}

/**
 * How a Db shares one PGlite with others: their common queue, what every turn starts with (the
 * owner's role and schema), and what closing this handle means (the last one closes PGlite).
 */
export interface PgliteSharing {
  queue: SerialQueue;
  enter(conn: Connection): Promise<void>;
  close(): Promise<void>;
}

function toResult<R>(result: Results<R>): QueryResult<R> {
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}

/**
 * Our own queue rather than PGlite's transaction(): it also has to cover a migration run, which
 * holds the connection across several transactions, and it catches the re-entrant deadlock.
 */
export class PgliteDb implements SessionDb {
  readonly kind = 'pglite' as const;
  readonly #pglite: PGlite;
  readonly #logger: Logger;
  readonly #queue: SerialQueue;
  readonly #conn: Connection;
  readonly #sharing: PgliteSharing | undefined;
  #closing: Promise<void> | undefined;

  /** `target`: what its spans name (the service's schema when shared). */
  constructor(pglite: PGlite, logger: Logger, target: DbTarget, sharing?: PgliteSharing) {
    this.#pglite = pglite;
    this.#logger = logger;
    this.#sharing = sharing;
    this.#queue = sharing?.queue ?? new SerialQueue();
    this.#conn = {
      query: <R>(sql: string, params?: readonly unknown[]) =>
        tracedStatement(target, sql, true, async () => toResult<R>(await pglite.query<R>(sql, params ? [...params] : undefined))),
      exec: (script) => tracedStatement(target, script, false, async () => (await pglite.exec(script)).at(-1)?.command),
    };
  }

  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    return this.#run(() => this.#conn.query<R>(sql, params));
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#run(() => runCallerTransaction(this.#conn, fn, (err) => this.#logger.error({ err }, 'PGlite ROLLBACK failed')));
  }

  withSession<T>(fn: (conn: Connection) => Promise<T>): Promise<T> {
    return this.#run(() => fn(this.#conn));
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  /** Queued work finishes first; PGlite's close() flushes a persistent data directory. */
  close(): Promise<void> {
    const sharing = this.#sharing;
    // A shared instance outlives this handle: the last handle's close closes it, in the queue.
    this.#closing ??= sharing ? sharing.close() : this.#queue.run(() => this.#pglite.close());
    return this.#closing;
  }

  #run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#closing !== undefined) return Promise.reject(new Error('The embedded database is closed'));
    const sharing = this.#sharing;
    if (!sharing) return this.#queue.run(task);
    return this.#queue.run(async () => {
      await sharing.enter(this.#conn);
      return task();
    });
  }
}
