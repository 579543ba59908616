import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMemoryBus, type MemoryBus } from '@acs/bus';
import { effectiveRole, currentPlanType } from '@acs/contracts';
import { applySubscriptionEvent, parseSubscriptionEvent, SUBSCRIPTION_EVENTS_QUEUE } from '../src/index.js';
import { LIFETIME_SUBSCRIPTION_END, SUBSCRIPTION_ROUTING_KEYS } from '../src/consumers/contracts.js';
import { findRow, registered, startIdentity, type IdentityHarness } from './harness.js';
import { subscriptionEvent } from './subscription-events.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, probe: () => Promise<T> | T, timeoutMs = 5_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await sleep(20);
  }
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

describe('subscription events on the in-process bus', () => {
  let bus: MemoryBus;
  let identity: IdentityHarness;

  beforeAll(async () => {
    bus = createMemoryBus({ delayScale: 0.001 });
    // No trial: a new account is Free with its trial over.
    identity = await startIdentity({
      bus,
      env: { TRIAL_DURATION_SECONDS: '0', SUBSCRIPTION_EVENTS_RETRY_DELAYS_MS: '10', SUBSCRIPTION_EVENTS_MAX_ATTEMPTS: '2' },
    });
  });
  afterAll(async () => {
    await identity?.stop();
    await bus?.close();
  });

  it('after subscription.activated the authz record carries the end and plan type: Subscriber until the end, Free after it', async () => {
    const { user, body } = await registered(identity);
    expect(user.role).toBe(0);
    // Far enough ahead that a slow machine still sees the subscription active when it checks.
    const end = new Date(Date.now() + 4000);
    const event = subscriptionEvent('activated', user.id, { planType: 2, currentPeriodEnd: end.toISOString() });
    await bus.publish(SUBSCRIPTION_ROUTING_KEYS.activated, event);
    const cached = await waitFor('the authz record with the subscription', async () => {
      const entry = await identity.cachedAuthz(user.id);
      return entry?.record.subscriptionEndsAt ? entry : null;
    });
    expect(cached.record).toMatchObject({
      userId: user.id,
      accountRole: 0,
      planType: 2,
      subscriptionEndsAt: Math.floor(end.getTime() / 1000),
    });
    expect(effectiveRole(cached.record, nowSeconds())).toBe(1);
    expect(currentPlanType(cached.record, nowSeconds())).toBe(2);
    // The record is written through to the cache before the change commits (so the next request sees it):
    // the row follows a moment later.
    const row = await waitFor('the committed row', async () => {
      const found = await findRow(identity.db, body.email);
      return found?.plan_type === 2 ? found : null;
    });
    expect(row).toMatchObject({ plan_type: 2, subscription_ends_at: end });
    // The next login says so too.
    const login = (await (await identity.login({ email: body.email, password: body.password })).json()) as {
      user: { role: number };
      token: string;
    };
    expect(login.user.role).toBe(1);
    expect(JSON.parse(Buffer.from(login.token.split('.')[1]!, 'base64url').toString('utf8'))).toMatchObject({ role: 1, plan_type: 2 });
    // After the period end the same record gives the account role, with no event and no scheduler.
    await sleep(Math.max(0, end.getTime() - Date.now()) + 1100);
    expect(effectiveRole(cached.record, nowSeconds())).toBe(0);
    expect(currentPlanType(cached.record, nowSeconds())).toBe(0);
  });

  it('stores Lifetime (currentPeriodEnd null) as 9999-12-31, which effectiveRole treats as active', async () => {
    const { user, body } = await registered(identity);
    await bus.publish(
      SUBSCRIPTION_ROUTING_KEYS.activated,
      subscriptionEvent('activated', user.id, { planType: 3, currentPeriodEnd: null }),
    );
    const cached = await waitFor('the lifetime record', async () => {
      const entry = await identity.cachedAuthz(user.id);
      return entry?.record.planType === 3 ? entry : null;
    });
    expect(cached.record.subscriptionEndsAt).toBe(Math.floor(LIFETIME_SUBSCRIPTION_END.getTime() / 1000));
    expect(effectiveRole(cached.record, nowSeconds())).toBe(1);
    // Written through before the commit, as above: the row follows a moment later.
    const row = await waitFor('the committed lifetime row', async () => {
      const found = await findRow(identity.db, body.email);
      return found?.plan_type === 3 ? found : null;
    });
    expect(row.subscription_ends_at).toEqual(LIFETIME_SUBSCRIPTION_END);
  });

  it('applies the same event once (processed_events), and skips an older event that arrives after a newer one', async () => {
    const { user, body } = await registered(identity);
    const first = parseSubscriptionEvent(subscriptionEvent('activated', user.id, { planType: 1 }));
    const newer = parseSubscriptionEvent(subscriptionEvent('changed', user.id, { planType: 2 }));
    expect(await applySubscriptionEvent(identity.deps, newer)).toBe('applied');
    const version = (await findRow(identity.db, body.email))!.version;
    expect(await applySubscriptionEvent(identity.deps, newer)).toBe('duplicate');
    expect(await applySubscriptionEvent(identity.deps, first)).toBe('stale');
    expect(await applySubscriptionEvent(identity.deps, first)).toBe('duplicate');
    const row = await findRow(identity.db, body.email);
    expect(row).toMatchObject({ plan_type: 2, version });
    const { rows } = await identity.db.query<{ n: number }>('SELECT count(*)::int AS n FROM processed_events WHERE user_id = $1', [
      user.id,
    ]);
    expect(rows[0]!.n).toBe(2);
  });

  it('orders by the per-user sequence only: a later event from a pod whose clock runs behind is applied, not dropped as stale', async () => {
    const { user, body } = await registered(identity);
    const skewedAhead = new Date(Date.now() + 10 * 60_000).toISOString();
    const behind = new Date(Date.now() - 10 * 60_000).toISOString();
    const activated = parseSubscriptionEvent(subscriptionEvent('activated', user.id, { planType: 2, occurredAt: skewedAhead }));
    const endedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000);
    const canceled = parseSubscriptionEvent(
      subscriptionEvent('canceled', user.id, {
        planType: 2,
        status: 'canceled',
        currentPeriodEnd: endedAt.toISOString(),
        occurredAt: behind,
      }),
    );
    expect(await applySubscriptionEvent(identity.deps, activated)).toBe('applied');
    expect(await applySubscriptionEvent(identity.deps, canceled)).toBe('applied');
    // The cancellation holds: the subscription ended, so the cached record gives the account role (Free).
    expect((await findRow(identity.db, body.email))!.subscription_ends_at).toEqual(endedAt);
    expect(effectiveRole((await identity.cachedAuthz(user.id))!.record, nowSeconds())).toBe(0);
    // And the reverse: an earlier sequence with a later clock arriving late is the stale one.
    const { user: other, body: otherBody } = await registered(identity);
    const early = parseSubscriptionEvent(subscriptionEvent('activated', other.id, { planType: 1, occurredAt: skewedAhead }));
    const late = parseSubscriptionEvent(subscriptionEvent('changed', other.id, { planType: 2, occurredAt: behind }));
    expect(await applySubscriptionEvent(identity.deps, late)).toBe('applied');
    expect(await applySubscriptionEvent(identity.deps, early)).toBe('stale');
    expect((await findRow(identity.db, otherBody.email))!.plan_type).toBe(2);
  });

  it('parks an event for an unknown user or with a bad payload in the dead-letter queue and keeps consuming', async () => {
    await bus.publish(SUBSCRIPTION_ROUTING_KEYS.activated, subscriptionEvent('activated', 987_654_321));
    await bus.publish(SUBSCRIPTION_ROUTING_KEYS.activated, { ...subscriptionEvent('activated', 1), payload: { userId: 'x' } });
    await bus.publishRaw(SUBSCRIPTION_ROUTING_KEYS.activated, 'not json');
    const dead = await waitFor('three dead letters', () =>
      bus.deadLetters(SUBSCRIPTION_EVENTS_QUEUE).length >= 3 ? bus.deadLetters(SUBSCRIPTION_EVENTS_QUEUE) : null,
    );
    expect(dead.map((letter) => letter.reason).sort()).toEqual(['max-attempts', 'max-attempts', 'poison']);
    const { user } = await registered(identity);
    await bus.publish(SUBSCRIPTION_ROUTING_KEYS.changed, subscriptionEvent('changed', user.id, { planType: 1 }));
    await waitFor('the later event applied', async () => (await identity.cachedAuthz(user.id))?.record.planType === 1);
  });
});
