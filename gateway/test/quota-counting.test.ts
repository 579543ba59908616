import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisCache, type Cache } from '@acs/cache';
import { createLogger } from '@acs/logger';
import type { AuthzRecord, QuotaThresholdCrossing } from '@acs/contracts';
import { deleteRedisKeys, testServerUrl, uniqueName } from '@acs/testing';
import { giveBackCounted } from '../src/limits/counted.js';
import { QuotaLimiter } from '../src/limits/quota-limiter.js';
import { quotaPlanOf } from '../src/limits/quota.js';

// Two replicas' quota limiters on one real Redis (each with its own connection), as the gateway uses them.
const prefix = `${uniqueName('quotacount')}:`;
const logger = createLogger({ name: 'test', level: 'silent' });
let caches: Cache[];

beforeAll(() => {
  caches = [0, 1].map(() => createRedisCache({ url: testServerUrl('REDIS_URL'), keyPrefix: prefix }));
});
afterAll(async () => {
  await Promise.all(caches.map((cache) => cache.close()));
  await deleteRedisKeys(prefix);
});

const record = (userId: number, perMonth: number): AuthzRecord => ({
  userId,
  accountRole: 0,
  trialEndsAt: null,
  subscriptionEndsAt: null,
  planType: 1,
  disabled: false,
  quota: { plan: 'monthly', perMonth, perDay: null },
});

describe('quota counting across replicas', () => {
  it('admits exactly the quota and reports each threshold once, by the request whose INCR reached it', async () => {
    const crossings: QuotaThresholdCrossing[] = [];
    const limiters = caches.map((cache) => new QuotaLimiter(cache, 2, logger, { quotaThreshold: (c) => crossings.push(c) }));
    const plan = quotaPlanOf(record(501, 20))!;
    const decisions = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const { decision, counted } = await limiters[i % 2]!.count(plan, false);
        if (decision.verdict.admitted) limiters[i % 2]!.admitted(decision);
        else giveBackCounted([counted], caches[i % 2]!.requestReads);
        return decision.verdict.admitted;
      }),
    );
    expect(decisions.filter(Boolean)).toHaveLength(20);
    expect(crossings.map((c) => c.percent).sort((a, b) => a - b)).toEqual([80, 90, 100]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await caches[0]!.get(plan.at!.names[0]!)).toBe('20');
  });

  it('while Redis is down, a replica admits its share of what the last count it saw left', async () => {
    const limiter = new QuotaLimiter(caches[0]!, 2, logger, { quotaThreshold: () => {} });
    const plan = quotaPlanOf(record(502, 10))!;
    for (let i = 0; i < 4; i++) expect((await limiter.count(plan, false)).decision.verdict.admitted).toBe(true);
    // 6 left over 2 replicas: 3 here. A record changed meanwhile (identity answered it) keeps the count it saw.
    const changed = quotaPlanOf(record(502, 10))!;
    const during = [];
    for (let i = 0; i < 5; i++) during.push((await limiter.count(changed, true)).decision.verdict.admitted);
    expect(during).toEqual([true, true, true, false, false]);
  });
});
