import type { Queryable } from '@acs/db';
import type { AuditEntry } from './audit-entry.js';
import { GENESIS_HASH, entryHash } from './audit-hash.js';
import { listAudit } from './audit-repository.js';
import { erasedRowDigest, erasureDigests } from './audit-erasure.js';
import type { AuditTable } from './audit-table.js';

export interface ChainProblem {
  /** The entry at fault: the edited one, or the first one after a gap. */
  id: number;
  kind: 'edited' | 'missing-before';
  message: string;
}

export interface ChainReport {
  service: string;
  checked: number;
  firstId: number | null;
  lastId: number | null;
  /** The first entry's prev_hash is not the genesis: older entries were pruned (retention) or removed from the start. */
  startsAfterPrune: boolean;
  problems: ChainProblem[];
}

const BATCH = 1000;

function checkEntry(entry: AuditEntry, expectedPrev: string | null, erasures: Map<number, string>, problems: ChainProblem[]): void {
  if (expectedPrev !== null && entry.prevHash !== expectedPrev)
    problems.push({
      id: entry.id,
      kind: 'missing-before',
      message: `entry ${entry.id} does not link to the entry before it: an entry before it was deleted, or the one before it was edited and rehashed`,
    });
  if (entry.erased) {
    // Its hash covered the personal data now erased: what it reads now must be what the erasure recorded.
    if (erasures.get(entry.id) !== erasedRowDigest(entry))
      problems.push({ id: entry.id, kind: 'edited', message: `entry ${entry.id} was edited after its personal data was erased` });
    return;
  }
  if (entryHash(entry.prevHash, { occurredAt: entry.occurredAt, actor: entry.actor, change: entry }) !== entry.hash)
    problems.push({ id: entry.id, kind: 'edited', message: `entry ${entry.id} was edited: its fields no longer give its stored hash` });
}

/**
 * Walks the table oldest first and recomputes the chain: an edited row no longer gives its hash,
 * a deleted row leaves the next one linking to nothing. (Removing the newest entries, or a
 * rewrite of every later hash, needs a copy kept elsewhere to be seen: export NDJSON regularly.)
 */
export async function verifyAuditChain(db: Queryable, table: AuditTable): Promise<ChainReport> {
  const report: ChainReport = { service: table.service, checked: 0, firstId: null, lastId: null, startsAfterPrune: false, problems: [] };
  const erasures = await erasureDigests(db, table);
  let expectedPrev: string | null = null;
  let afterId = 0;
  for (;;) {
    const batch = await listAudit(db, table, { afterId, limit: BATCH, order: 'oldest' });
    for (const entry of batch) {
      if (report.firstId === null) {
        report.firstId = entry.id;
        report.startsAfterPrune = entry.prevHash !== GENESIS_HASH;
      }
      checkEntry(entry, expectedPrev, erasures, report.problems);
      expectedPrev = entry.hash;
      report.lastId = entry.id;
      report.checked += 1;
    }
    if (batch.length < BATCH) return report;
    afterId = batch[batch.length - 1]!.id;
  }
}
