import type { BusEnvelope } from '@acs/bus';
import { authzCacheKey } from '@acs/contracts';
import { storePlanQuota } from '../data-access/plan-quotas-repository.js';
import { bumpPlanUsers } from '../data-access/users-repository.js';
import type { UserStore } from '../domain/deps.js';
import { cacheAuthzRecord } from '../domain/write-through.js';
import { PLAN_QUOTA_EVENT_TYPE, planQuotaEventSchema } from './contracts.js';

/** Users whose records one transaction rewrites: short row locks next to logins and subscription events. */
const REWRITE_BATCH = 500;

export const isPlanEvent = (message: BusEnvelope): boolean => message.type === PLAN_QUOTA_EVENT_TYPE;

/**
 * plan.quota_changed (billing CLI `plans set-quota`): stores the plan's quota, then rewrites the
 * authorization record of every user subscribed to the plan, in id order, REWRITE_BATCH users per
 * transaction (each bumps the users' versions and writes their records through before it commits),
 * logging progress. A failure throws: the bus redelivers the event and the rewrite starts over (the
 * batches already done are rewritten again, harmlessly). An event older than the stored quota
 * (billing's outbox sequence) changes nothing. Returns how many records were rewritten.
 */
export async function applyPlanQuotaEvent(store: UserStore, message: BusEnvelope): Promise<number> {
  const parsed = planQuotaEventSchema.safeParse(message);
  if (!parsed.success) throw new Error(parsed.error.issues.map((issue) => issue.message).join('; '));
  const { planId, quota, sequence } = parsed.data.payload;
  if (!(await storePlanQuota(store.db, planId, quota, sequence))) {
    store.logger.debug({ eventId: message.id, planId, sequence }, 'plan quota event stale');
    return 0;
  }
  let done = 0;
  let afterId = 0;
  for (;;) {
    const users = await store.db.transaction(async (tx) => {
      const batch = await bumpPlanUsers(tx, planId, afterId, REWRITE_BATCH);
      const written = await Promise.all(batch.map((user) => cacheAuthzRecord(store, user)));
      // A cached entry claiming a newer version cannot be this database's: drop it, the next request refills it.
      await Promise.all(batch.filter((_, i) => !written[i]).map((user) => store.cache.del(authzCacheKey(user.id))));
      return batch;
    });
    done += users.length;
    if (users.length > 0) {
      afterId = users[users.length - 1]!.id;
      store.logger.info({ planId, rewritten: done }, 'plan quota: rewriting the records of the plan users');
    }
    if (users.length < REWRITE_BATCH) break;
  }
  store.logger.info({ audit: 'plan.quota_applied', eventId: message.id, planId, quota, users: done }, 'plan quota applied');
  return done;
}
