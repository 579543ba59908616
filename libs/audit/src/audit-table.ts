import { assertSqlIdentifier } from '@acs/db';

/**
 * One service's audit trail: its table (the columns of services/<name>/migrations/*_audit.sql)
 * and the advisory-lock key that makes appends one at a time, so the hash chain is a line.
 */
export interface AuditTable {
  readonly name: string;
  readonly lockKey: number;
  /** The service it belongs to, named in exports and in verify's report. */
  readonly service: string;
}

export function defineAuditTable(service: string, name: string, lockKey: number): AuditTable {
  assertSqlIdentifier(name, 'audit table name');
  if (!Number.isSafeInteger(lockKey)) throw new Error(`audit lock key ${lockKey} is not a safe integer`);
  return Object.freeze({ name, lockKey, service });
}
