import { startPeriodicPurge, type PeriodicPurge, type Queryable } from '@acs/db';
import type { Logger } from '@acs/logger';
import { purgeOperationUsage } from '../data-access/usage-repository.js';

const PURGE_EVERY_MS = 3600_000;

/** Purges per-operation usage older than `retentionDays` now and every hour. */
export const startUsagePurge = (db: Queryable, retentionDays: number, logger: Logger): PeriodicPurge =>
  startPeriodicPurge(() => purgeOperationUsage(db, retentionDays), PURGE_EVERY_MS, logger, {
    done: 'purged per-operation usage',
    failed: 'could not purge per-operation usage; will try again',
    context: { retentionDays },
  });
