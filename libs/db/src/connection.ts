import type { Db, Queryable } from './db.js';

/**
 * One physical connection held for a while: a pool client, or PGlite while our queue grants it.
 * Internal: `exec` runs scripts (migration files) and returns the last command tag.
 */
export interface Connection extends Queryable {
  exec(script: string): Promise<string | undefined>;
}

/**
 * A Db that can lend one connection for several transactions in a row. Migrations need that:
 * a session-level advisory lock lives on one connection, so the whole run must stay on it.
 */
export interface SessionDb extends Db {
  withSession<T>(fn: (conn: Connection) => Promise<T>): Promise<T>;
}

export function hasSessions(db: Db): db is SessionDb {
  return typeof (db as Partial<SessionDb>).withSession === 'function';
}
