import type { PoolClient, QueryResult as PgResult } from 'pg';
import type { Connection } from '../connection.js';
import type { QueryResult } from '../db.js';

export function toResult<R>(result: PgResult): QueryResult<R> {
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}

export function clientConnection(client: PoolClient): Connection {
  return {
    query: async <R>(sql: string, params?: readonly unknown[]) => toResult<R>(await client.query(sql, params ? [...params] : undefined)),
    exec: async (script) => {
      // Without parameters pg uses the simple protocol, which answers a multi-statement script
      // with one result per statement: an array that its types do not admit.
      const results: PgResult | PgResult[] = await client.query(script);
      return Array.isArray(results) ? results.at(-1)?.command : results.command;
    },
  };
}
