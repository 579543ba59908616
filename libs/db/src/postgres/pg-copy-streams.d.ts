// pg-copy-streams ships no types; only the part client-connection.ts uses.
declare module 'pg-copy-streams' {
  import type { Writable } from 'node:stream';
  import type { Submittable } from 'pg';

  export interface CopyStreamQuery extends Writable, Submittable {
    /** Rows the server reported copied, once the stream has finished. */
    rowCount: number;
  }
  export function from(sql: string): CopyStreamQuery;
}
