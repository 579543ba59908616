import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMemoryBus, type BusEnvelope, type MemoryBus } from '@acs/bus';
import { PLAN_QUOTA_EVENT_TYPE, PLAN_QUOTA_ROUTING_KEY, type PlanQuota } from '@acs/contracts';
import { waitFor } from '@acs/testing';
import { setUserRole } from '../src/domain/change-user.js';
import { SUBSCRIPTION_ROUTING_KEYS } from '../src/consumers/contracts.js';
import { registered, startIdentity, type IdentityHarness } from './harness.js';
import { subscriptionEvent } from './subscription-events.js';

/** Billing's outbox positions: far above what subscription-events.ts counts from. */
let sequence = 1_000_000;

function planEvent(planId: string, quota: PlanQuota, at = ++sequence): BusEnvelope {
  const id = randomUUID();
  const occurredAt = new Date().toISOString();
  return { id, type: PLAN_QUOTA_EVENT_TYPE, occurredAt, payload: { eventId: id, planId, quota, sequence: at, occurredAt } };
}

describe('plan quotas in the authorization record', () => {
  let bus: MemoryBus;
  let identity: IdentityHarness;

  beforeAll(async () => {
    bus = createMemoryBus({ delayScale: 0.001 });
    identity = await startIdentity({
      bus,
      env: { TRIAL_DURATION_SECONDS: '0', NO_SUBSCRIPTION_QUOTA: '50/1d', TRIAL_QUOTA: '700/1mo,70/1d' },
    });
  });
  afterAll(async () => {
    await identity?.stop();
    await bus?.close();
  });

  const quotaOf = async (userId: number) => (await identity.cachedAuthz(userId))?.record.quota;

  async function subscribed(planId: string, quota: PlanQuota): Promise<number> {
    const { user } = await registered(identity);
    const event = subscriptionEvent('activated', user.id, { planType: planId === 'yearly' ? 2 : 1, sequence: ++sequence });
    Object.assign(event.payload as object, { planId, quota });
    await bus.publish(SUBSCRIPTION_ROUTING_KEYS.activated, event);
    await waitFor(`user ${user.id} on ${planId}`, async () => (await quotaOf(user.id))?.plan === planId);
    return user.id;
  }

  it('a user with neither trial nor subscription gets NO_SUBSCRIPTION_QUOTA; the subscription event brings the plan quota', async () => {
    const { user } = await registered(identity);
    expect(await quotaOf(user.id)).toEqual({ plan: 'none', perMonth: null, perDay: 50 });
    const id = await subscribed('monthly', { perMonth: 123_456, perDay: null });
    expect(await quotaOf(id)).toEqual({ plan: 'monthly', perMonth: 123_456, perDay: null });
  });

  it('a plan.quota_changed event rewrites the record of every user on the plan, and only theirs; a stale one changes nothing', async () => {
    const monthly = [
      await subscribed('monthly', { perMonth: 1000, perDay: null }),
      await subscribed('monthly', { perMonth: 1000, perDay: null }),
    ];
    const yearly = await subscribed('yearly', { perMonth: 9000, perDay: null });
    const yearlyVersion = (await identity.cachedAuthz(yearly))!.version;
    await bus.publish(PLAN_QUOTA_ROUTING_KEY, planEvent('monthly', { perMonth: 1000, perDay: 40 }));
    for (const id of monthly) await waitFor(`user ${id} with the new quota`, async () => (await quotaOf(id))?.perDay === 40);
    expect(await quotaOf(monthly[0]!)).toEqual({ plan: 'monthly', perMonth: 1000, perDay: 40 });
    expect(await identity.cachedAuthz(yearly)).toMatchObject({ version: yearlyVersion, record: { quota: { perMonth: 9000 } } });
    // An event billing wrote before the one applied (a lower sequence) arrives late: ignored.
    await bus.publish(PLAN_QUOTA_ROUTING_KEY, planEvent('monthly', { perMonth: 1, perDay: null }, 5));
    await bus.publish(PLAN_QUOTA_ROUTING_KEY, planEvent('yearly', { perMonth: 9001, perDay: null }));
    await waitFor('the yearly change', async () => (await quotaOf(yearly))?.perMonth === 9001);
    expect(await quotaOf(monthly[1]!)).toEqual({ plan: 'monthly', perMonth: 1000, perDay: 40 });
    // A user subscribing after the change gets the new quota even from an event carrying none (written before quotas).
    const { user } = await registered(identity);
    await bus.publish(SUBSCRIPTION_ROUTING_KEYS.activated, subscriptionEvent('activated', user.id, { planType: 1, sequence: ++sequence }));
    await waitFor('the legacy event applied', async () => (await quotaOf(user.id))?.plan === 'monthly');
    expect(await quotaOf(user.id)).toEqual({ plan: 'monthly', perMonth: 1000, perDay: 40 });
  });

  it('the trial has its own quota, the record expires when the trial ends, and the refill carries the next quota', async () => {
    const trial = await startIdentity({
      env: { TRIAL_DURATION_SECONDS: '2', NO_SUBSCRIPTION_QUOTA: '50/1d', TRIAL_QUOTA: '700/1mo,70/1d' },
    });
    try {
      const { user } = await registered(trial);
      const cached = await trial.cachedAuthz(user.id);
      expect(cached?.record.quota).toEqual({ plan: 'trial', perMonth: 700, perDay: 70 });
      expect(cached!.ttlSeconds).toBeLessThanOrEqual(2);
      await waitFor('the record to expire with the trial', async () => (await trial.cachedAuthz(user.id)) === null, 5_000);
      const answer = (await (await trial.lookup({ userId: user.id })).json()) as { record: { quota: unknown } };
      expect(answer.record.quota).toEqual({ plan: 'none', perMonth: null, perDay: 50 });
    } finally {
      await trial.stop();
    }
  });

  it('operators (Admin and above) have no quota; a quota without caps is none', async () => {
    const none = await startIdentity({ env: { NO_SUBSCRIPTION_QUOTA: 'none', TRIAL_DURATION_SECONDS: '0' } });
    try {
      const { user } = await registered(none);
      expect((await none.cachedAuthz(user.id))?.record.quota).toBeNull();
      const { user: admin, body } = await registered(identity);
      expect((await identity.cachedAuthz(admin.id))?.record.quota).toEqual({ plan: 'none', perMonth: null, perDay: 50 });
      await setUserRole(identity.deps, body.email, 2);
      expect(await identity.cachedAuthz(admin.id)).toMatchObject({ record: { accountRole: 2, quota: null } });
    } finally {
      await none.stop();
    }
  });
});
