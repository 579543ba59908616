import {
  authzCacheKey,
  authzRecordSchema,
  quotaCounterKey,
  quotaPeriodStart,
  type QuotaPeriod,
  type UsageResponseBody,
  type UserQuota,
} from '@acs/contracts';
import { parseVersioned } from '@acs/cache';
import { listApiKeys } from '../data-access/api-keys-repository.js';
import { requestsPerKeySince } from '../data-access/usage-repository.js';
import type { KeysDeps } from './deps.js';

/** The start of the next UTC period after the one `atMs` falls in. */
function nextPeriodStart(period: QuotaPeriod, atMs: number): Date {
  const at = new Date(atMs);
  return period === 'day'
    ? new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1))
    : new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** The user's quota as the gateway applies it: from the authorization record identity keeps in Redis. */
function quotaOf(raw: string | null): UserQuota | null {
  const entry = parseVersioned(raw);
  if (!entry) return null;
  const parsed = authzRecordSchema.safeParse(JSON.parse(entry.value));
  return parsed.success ? (parsed.data.quota ?? null) : null;
}

/**
 * GET /api/Usage: the period totals are the gateway's own counters (quotaCounterKey, exact: every
 * admitted request of any of the user's keys), read with the user's authorization record in one
 * MGET (the same hash tag, so one slot on a cluster); per key, this month's sum from the hourly roll-up.
 */
export async function userUsage(deps: Pick<KeysDeps, 'db' | 'cache'>, userId: number, now = Date.now()): Promise<UsageResponseBody> {
  const month = quotaPeriodStart('month', now);
  const day = quotaPeriodStart('day', now);
  const [record, monthCount, dayCount] = await deps.cache.mget([
    authzCacheKey(userId),
    quotaCounterKey(userId, 'month', month),
    quotaCounterKey(userId, 'day', day),
  ]);
  const quota = quotaOf(record ?? null);
  const period = (name: QuotaPeriod, start: string, used: number, cap: number | null) => ({
    period: name,
    periodStart: start,
    resetsAt: nextPeriodStart(name, now).toISOString(),
    used,
    quota: cap,
    left: cap === null ? null : Math.max(0, cap - used),
  });
  const periods = [period('month', month, Number(monthCount ?? 0), quota?.perMonth ?? null)];
  if (quota?.perDay != null) periods.push(period('day', day, Number(dayCount ?? 0), quota.perDay));
  const monthStart = new Date(`${month}-01T00:00:00Z`);
  const [keys, perKey] = await Promise.all([
    listApiKeys(deps.db, { ownerUserId: userId }),
    requestsPerKeySince(deps.db, userId, monthStart),
  ]);
  return {
    plan: quota?.plan ?? null,
    periods,
    keys: keys
      .filter((key) => key.revokedAt === null || (perKey.get(key.id) ?? 0) > 0)
      .map((key) => ({ id: key.id, name: key.name, requests: perKey.get(key.id) ?? 0 }))
      .sort((a, b) => b.requests - a.requests),
  };
}
