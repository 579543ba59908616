import type { Queryable } from '@acs/db';
import type { Logger } from '@acs/logger';
import { purgeOperationUsage } from '../data-access/usage-repository.js';

const PURGE_EVERY_MS = 3600_000;

/** Purges per-operation usage older than `retentionDays` now and every hour (unref'd; replicas may overlap harmlessly). */
export function startUsagePurge(db: Queryable, retentionDays: number, logger: Logger): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const run = (): void => {
    running = purgeOperationUsage(db, retentionDays).then(
      (deleted) => {
        if (deleted > 0) logger.info({ deleted, retentionDays }, 'purged per-operation usage');
      },
      (err: unknown) => logger.warn({ err }, 'could not purge per-operation usage; will try again'),
    );
  };
  const timer = setInterval(run, PURGE_EVERY_MS);
  timer.unref();
  run();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
