import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { pruneAudit } from './audit-repository.js';
import type { AuditTable } from './audit-table.js';

const PRUNE_INTERVAL_MS = 3600_000;

/**
 * Deletes entries older than `days` once an hour (0: keep everything), and with them what `alsoPrune`
 * keeps of them elsewhere (identity's feed); returns the stop function for the service's close stack.
 */
export function startAuditRetention(
  db: Db,
  table: AuditTable,
  days: number,
  logger: Logger,
  alsoPrune: (db: Db, days: number) => Promise<number> = async () => 0,
): () => void {
  if (days === 0) return () => undefined;
  const prune = () =>
    Promise.all([pruneAudit(db, table, days), alsoPrune(db, days)])
      .then(([deleted]) => {
        if (deleted > 0) logger.info({ deleted, retentionDays: days }, 'audit entries past their retention deleted');
      })
      .catch((err: unknown) => logger.warn({ err }, 'could not prune the audit trail'));
  const timer = setInterval(prune, PRUNE_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
