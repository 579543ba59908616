import { createHash } from 'node:crypto';
import type { AuditActor, AuditChange } from './audit-entry.js';

/** The prev_hash of the first entry of a chain. */
export const GENESIS_HASH = '0'.repeat(64);

/** JSON with object keys sorted at every level: jsonb gives keys back in its own order, so the hash must not depend on it. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, entry]) => entry !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
}

export interface HashedFields {
  occurredAt: Date;
  actor: AuditActor;
  change: AuditChange;
}

/**
 * The scalar fields of an entry between its time and its before/after images, in column order
 * (actor_type … user_id): the hash and the INSERT read them from here, so the two cannot drift apart.
 */
export function scalarFields(actor: AuditActor, change: AuditChange): unknown[] {
  return [actor.type, actor.id, actor.requestId, actor.clientAddress, change.action, change.targetType, change.targetId, change.userId];
}

/**
 * SHA-256 over the previous entry's hash and every stored field of this one: editing any field of
 * a row, or removing a row, breaks the link to the next one (verify-chain.ts).
 */
export function entryHash(prevHash: string, { occurredAt, actor, change }: HashedFields): string {
  const fields = [occurredAt.toISOString(), ...scalarFields(actor, change), change.before, change.after];
  return createHash('sha256').update(prevHash).update('\n').update(canonicalJson(fields)).digest('hex');
}
