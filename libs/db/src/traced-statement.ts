import type { Attributes } from '@opentelemetry/api';
import { ATTR, inClientSpan } from '@acs/tracing';
import { sqlStateOf } from './sql-errors.js';

/** Where statements go, as the database span attributes name it. */
export interface DbTarget {
  /** The database (PostgreSQL) or the service's schema (the shared PGlite). */
  namespace: string;
  address?: string;
  port?: number;
}

export function postgresTarget(url: string): DbTarget {
  const parsed = new URL(url);
  return {
    namespace: decodeURIComponent(parsed.pathname.slice(1)) || 'postgres',
    address: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 5432,
  };
}

const OPERATION = /^\s*([A-Za-z]+)/;
/** Enough for any statement written here; generated multi-row inserts are cut. */
const MAX_TEXT = 2000;

/**
 * A CLIENT span around one statement, when tracing is on and the statement runs inside a traced
 * operation (a request, a consumed message): pool checks, polls and start-up work make no traces of
 * their own. The text is recorded only for parameterized statements (`withText`), whose values are in
 * the parameters, never in the text; parameters are never recorded. A failure records its SQLSTATE,
 * not its message (PostgreSQL's messages can quote values).
 */
export function tracedStatement<T>(target: DbTarget, sql: string, withText: boolean, run: () => Promise<T>): Promise<T> {
  return inClientSpan(
    '@acs/db',
    () => {
      const operation = OPERATION.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
      const attributes: Attributes = {
        [ATTR.dbSystem]: 'postgresql',
        [ATTR.dbNamespace]: target.namespace,
        [ATTR.dbOperation]: operation,
      };
      if (withText) attributes[ATTR.dbQueryText] = sql.length > MAX_TEXT ? sql.slice(0, MAX_TEXT) : sql;
      if (target.address !== undefined) attributes[ATTR.serverAddress] = target.address;
      if (target.port !== undefined) attributes[ATTR.serverPort] = target.port;
      return { name: `${operation} ${target.namespace}`, attributes };
    },
    run,
    (err) => sqlStateOf(err) ?? (err instanceof Error ? err.name : 'Error'),
  );
}
