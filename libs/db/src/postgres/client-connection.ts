import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient, QueryResult as PgResult } from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import type { Connection } from '../connection.js';
import type { QueryResult } from '../db.js';
import { tracedStatement, type DbTarget } from '../traced-statement.js';

export function toResult<R>(result: PgResult): QueryResult<R> {
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}

export function clientConnection(client: PoolClient, target: DbTarget): Connection {
  return {
    query: <R>(sql: string, params?: readonly unknown[]) =>
      tracedStatement(target, sql, true, async () => toResult<R>(await client.query(sql, params ? [...params] : undefined))),
    exec: (script) =>
      tracedStatement(target, script, false, async () => {
        // Without parameters pg uses the simple protocol, which answers a multi-statement script
        // with one result per statement: an array that its types do not admit.
        const results: PgResult | PgResult[] = await client.query(script);
        return Array.isArray(results) ? results.at(-1)?.command : results.command;
      }),
    copyFrom: (sql, chunks) =>
      tracedStatement(target, sql, false, async () => {
        // pg-copy-streams (by pg's own maintainers) speaks the COPY sub-protocol on this client;
        // pg has no COPY of its own. The pipeline rejects with the server's error (with its SQLSTATE).
        const stream = client.query(copyFromStdin(sql));
        await pipeline(Readable.from(chunks, { objectMode: false }), stream);
        return stream.rowCount;
      }),
  };
}
