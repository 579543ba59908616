import { createHash } from 'node:crypto';
import { type Queryable, jsonbParameter } from '@acs/db';
import type { AuditActor, AuditEntry } from './audit-entry.js';
import { canonicalJson, scalarFields } from './audit-hash.js';
import { appendAudit, listAudit } from './audit-repository.js';
import type { AuditTable } from './audit-table.js';

/** The action of the entry that lists what an erasure changed (verify reads it back). */
export const AUDIT_ERASED_ACTION = 'audit.erased';

/**
 * Fields of the before/after views that name a person: an erasure sets them to null. The rest of a
 * view (roles, plan, dates, key scopes) says what happened without saying who it was. A key's
 * `name` is free text its owner chose ("Ada's phone") and its `ipAllowList` may hold a home
 * address: both go too.
 */
const PERSONAL_FIELDS = new Set(['email', 'firstName', 'lastName', 'address', 'device', 'clientAddress', 'name', 'ipAllowList']);

function redactView(view: Record<string, unknown> | null): Record<string, unknown> | null {
  if (view === null) return null;
  return Object.fromEntries(Object.entries(view).map(([key, value]) => [key, PERSONAL_FIELDS.has(key) ? null : value]));
}

/**
 * The digest of an erased row as it now reads (every column but `erased`, its own hash and link
 * included): the erasure entry records it, so verify can tell an erased row from an edited one.
 */
export function erasedRowDigest(entry: Omit<AuditEntry, 'erased'>): string {
  const fields = [
    entry.id,
    entry.occurredAt.toISOString(),
    ...scalarFields(entry.actor, entry),
    entry.before,
    entry.after,
    entry.prevHash,
    entry.hash,
  ];
  return createHash('sha256').update(canonicalJson(fields)).digest('hex');
}

export interface ErasedEntryRecord {
  id: number;
  digest: string;
}

/**
 * Erases a user's personal data from a service's trail, inside the caller's transaction (the account
 * deletion, or the consumer of user.deleted): in every entry of the user's trail, and every entry
 * the user made, the client address and the personal fields of the views become null and the row
 * is marked erased. The chain cannot recompute those rows' hashes any more, so a new entry
 * (`audit.erased`, itself chained and hashed like any other) lists each erased row with the digest
 * of what it now reads: verify checks an erased row against that digest, and the links between rows
 * as before. The table's trigger allows this one UPDATE, announced by a transaction-local setting.
 * Returns how many entries were erased (0: nothing appended).
 */
export async function eraseUserFromAudit(tx: Queryable, table: AuditTable, userId: number, actor: AuditActor): Promise<number> {
  await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [table.lockKey]);
  await tx.query("SELECT set_config('audit.erasing', 'on', true)");
  const erased: ErasedEntryRecord[] = [];
  let afterId = 0;
  for (;;) {
    const batch = await listAudit(tx, table, { afterId, limit: 500, order: 'oldest', userOrActor: userId });
    for (const entry of batch) {
      if (entry.action === AUDIT_ERASED_ACTION) continue;
      const redacted = {
        ...entry,
        actor: { ...entry.actor, clientAddress: null },
        before: redactView(entry.before),
        after: redactView(entry.after),
      };
      await tx.query(`UPDATE ${table.name} SET client_address = NULL, before = $2::jsonb, after = $3::jsonb, erased = true WHERE id = $1`, [
        entry.id,
        jsonbParameter(redacted.before),
        jsonbParameter(redacted.after),
      ]);
      erased.push({ id: entry.id, digest: erasedRowDigest(redacted) });
    }
    if (batch.length < 500) break;
    afterId = batch[batch.length - 1]!.id;
  }
  await tx.query("SELECT set_config('audit.erasing', 'off', true)");
  if (erased.length === 0) return 0;
  // The erasure's own entry names who asked but not from where: it is in the erased user's trail too.
  await appendAudit(
    tx,
    table,
    { ...actor, clientAddress: null },
    {
      action: AUDIT_ERASED_ACTION,
      targetType: 'account',
      targetId: String(userId),
      userId,
      before: null,
      after: { entries: erased },
    },
  );
  return erased.length;
}

/** Every erased row's recorded digest, from the table's `audit.erased` entries (verify-chain.ts). */
export async function erasureDigests(db: Queryable, table: AuditTable): Promise<Map<number, string>> {
  const digests = new Map<number, string>();
  let afterId = 0;
  for (;;) {
    const batch = await listAudit(db, table, { action: AUDIT_ERASED_ACTION, afterId, limit: 1000, order: 'oldest' });
    for (const entry of batch) {
      const listed = (entry.after?.entries ?? []) as ErasedEntryRecord[];
      for (const record of listed) digests.set(record.id, record.digest);
    }
    if (batch.length < 1000) return digests;
    afterId = batch[batch.length - 1]!.id;
  }
}
