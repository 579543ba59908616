/**
 * One service's outbox: the table its events are written to (the columns of billing's
 * 001_create_billing.sql outbox plus 002's trace_context; each service's migration creates its own)
 * and the advisory-lock key that keeps one relay at a time per table across replicas.
 */
export interface OutboxTable {
  readonly name: string;
  readonly lockKey: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The table name is put into SQL text (identifiers cannot be parameters), so it must be a plain
 * lower-case identifier written in code, never a value that came from outside.
 */
export function defineOutboxTable(name: string, lockKey: number): OutboxTable {
  if (!IDENTIFIER.test(name)) throw new Error(`outbox table name "${name}" is not a plain lower-case SQL identifier`);
  if (!Number.isSafeInteger(lockKey)) throw new Error(`outbox lock key ${lockKey} is not a safe integer`);
  return Object.freeze({ name, lockKey });
}
