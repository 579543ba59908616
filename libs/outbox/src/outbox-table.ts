import { assertSqlIdentifier } from '@acs/db';

/**
 * One service's outbox: the table its events are written to (the columns of billing's
 * 001_create_billing.sql outbox plus 002's trace_context; each service's migration creates its own)
 * and the advisory-lock key that keeps one relay at a time per table across replicas.
 */
export interface OutboxTable {
  readonly name: string;
  readonly lockKey: number;
}

export function defineOutboxTable(name: string, lockKey: number): OutboxTable {
  assertSqlIdentifier(name, 'outbox table name');
  if (!Number.isSafeInteger(lockKey)) throw new Error(`outbox lock key ${lockKey} is not a safe integer`);
  return Object.freeze({ name, lockKey });
}
