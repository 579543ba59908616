import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiKeyCreatedResponseSchema, usageResponseSchema } from '@acs/contracts';
import { uniqueName, waitFor } from '@acs/testing';
import type { ServiceProcess } from '../../bench/src/processes.js';
import { appKey, bearer, json, newUser, type Auth, type User } from './actors.js';
import { startSecondGateway } from './second-gateway.js';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';

// Issue 29 through the whole system on real PostgreSQL, Redis and RabbitMQ, with two gateway processes:
// a trial's daily quota is shared by all of the user's keys across replicas, a spent quota answers 429
// quota_exceeded with the plan and the reset, and a subscription (billing -> RabbitMQ -> identity -> the
// authorization record) lifts it on the user's next request.
const TRIAL_PER_DAY = 6;
let sut: SystemUnderTest;
let second: ServiceProcess;
let app: Auth;
let dashboard: Auth;

beforeAll(async () => {
  sut = await startSystemUnderTest({
    AMQP_URL: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    BUS_EXCHANGE: uniqueName('quota_e2e'),
    TRIAL_QUOTA: `1000/1mo,${TRIAL_PER_DAY}/1d`,
    KEY_USAGE_FLUSH_MS: '200',
  });
  second = await startSecondGateway(sut);
  app = await appKey(sut, ['auth:register', 'auth:login']);
  dashboard = await appKey(sut, ['system:full-access']);
}, 120_000);
afterAll(async () => {
  await second?.stop();
  await sut?.stop();
});

const viaFirst = (path: string, auth: Auth, init: RequestInit = {}) => sut.call('GET', path, auth, init);
const viaSecond = (path: string, auth: Auth) =>
  fetch(`${second.url}${path}`, { headers: { 'x-api-key': auth.key, 'x-api-secret': auth.secret } });

async function userKey(user: User, name: string): Promise<Auth> {
  const res = await sut.call('POST', '/api/ApiKeys', dashboard, bearer(user.token, json({ name, scopes: 'read:devices' })));
  expect(res.status).toBe(201);
  const created = apiKeyCreatedResponseSchema.parse(await res.json());
  return { key: created.key, secret: created.secret };
}

/** The remaining count of the quota item in a RateLimit header, e.g. `"quota-day";r=3;t=4000` -> 3. */
const quotaRemaining = (res: Response, period: 'day' | 'month'): number | null => {
  const match = new RegExp(`"quota-${period}";r=(\\d+)`).exec(res.headers.get('ratelimit') ?? '');
  return match ? Number(match[1]) : null;
};

describe('plan quotas across keys and gateways', () => {
  it('counts every key of the user on both gateways, refuses the spent quota, and a subscription lifts it on the next request', async () => {
    const user = await newUser(sut, app);
    const [first, other] = [await userKey(user, 'app one'), await userKey(user, 'app two')];

    // Six requests in all, alternating keys and gateways: each admitted, each with the quota's room left.
    const remaining: (number | null)[] = [];
    for (let i = 0; i < TRIAL_PER_DAY; i++) {
      const key = i % 2 === 0 ? first : other;
      const res = i % 3 === 0 ? await viaSecond('/api/Dac?pageSize=1', key) : await viaFirst('/api/Dac?pageSize=1', key);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toMatch(new RegExp(`"quota-day";q=${TRIAL_PER_DAY};w=86400`));
      remaining.push(quotaRemaining(res, 'day'));
    }
    expect(remaining).toEqual([5, 4, 3, 2, 1, 0]);

    // The seventh, whichever key and gateway: 429 quota_exceeded, the plan and the reset named, Retry-After to it.
    for (const res of [await viaFirst('/api/Dac?pageSize=1', other), await viaSecond('/api/Dac?pageSize=1', first)]) {
      expect(res.status).toBe(429);
      const body = (await res.json()) as { code?: string; hint?: string };
      expect(body.code).toBe('quota_exceeded');
      expect(body.hint).toMatch(/trial/);
      expect(body.hint).toMatch(/\d{4}-\d{2}-\d{2}/);
      const retryAfter = Number(res.headers.get('retry-after'));
      const untilMidnight = Math.ceil((Date.UTC(...utcTomorrow()) - Date.now()) / 1000);
      expect(retryAfter).toBeGreaterThan(0);
      expect(Math.abs(retryAfter - untilMidnight)).toBeLessThanOrEqual(5);
    }

    // Refused requests do not count: the user's period shows exactly the admitted six.
    await new Promise((resolve) => setTimeout(resolve, 600)); // > KEY_USAGE_FLUSH_MS
    const usage = usageResponseSchema.parse(await (await sut.call('GET', '/api/Usage', dashboard, bearer(user.token))).json());
    expect(usage.plan).toBe('trial');
    expect(usage.periods.find((p) => p.period === 'day')).toMatchObject({ quota: TRIAL_PER_DAY, used: TRIAL_PER_DAY });

    // Subscribing: billing's outbox -> RabbitMQ -> identity rewrites the record; the next request is admitted.
    // (the user's own keys are refused now: the operator's key reads the plans)
    const plans = (await (await viaFirst('/api/SubscriptionPlans', dashboard)).json()) as { items: { id: string; planType: number }[] };
    const monthly = plans.items.find((plan) => plan.planType === 1)!.id;
    const subscribed = await sut.call('POST', '/api/Subscriptions', dashboard, bearer(user.token, json({ planId: monthly })));
    expect(subscribed.status).toBe(201);
    await waitFor('the monthly plan to reach the gateway', async () => (await viaSecond('/api/Dac?pageSize=1', other)).status === 200);
    const after = await viaFirst('/api/Dac?pageSize=1', first);
    expect(after.status).toBe(200);
    expect(after.headers.get('ratelimit-policy')).not.toContain('"quota-day"');
    expect(quotaRemaining(after, 'month')).toBeGreaterThan(900_000);
  }, 90_000);
});

function utcTomorrow(): [number, number, number] {
  const now = new Date();
  return [now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1];
}
