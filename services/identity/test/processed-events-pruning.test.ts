import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMemoryBus, type MemoryBus } from '@acs/bus';
import { applySubscriptionEvent, parseSubscriptionEvent } from '../src/index.js';
import { pruneProcessedEvents } from '../src/consumers/processed-events-pruner.js';
import { findRow, registered, startIdentity, type IdentityHarness } from './harness.js';
import { subscriptionEvent } from './subscription-events.js';

// processed_events must not grow forever, and pruning must never let an old event be applied again.
let bus: MemoryBus;
let identity: IdentityHarness;

beforeAll(async () => {
  bus = createMemoryBus({ delayScale: 0.001 });
  identity = await startIdentity({ bus, env: { TRIAL_DURATION_SECONDS: '0' } });
});
afterAll(async () => {
  await identity?.stop();
  await bus?.close();
});

const eventIdsOf = async (userId: number): Promise<string[]> =>
  (
    await identity.db.query<{ event_id: string }>('SELECT event_id FROM processed_events WHERE user_id = $1 ORDER BY sequence', [userId])
  ).rows.map((r) => r.event_id);

const age = (userId: number, days: number) =>
  identity.db.query(`UPDATE processed_events SET processed_at = now() - make_interval(days => $2) WHERE user_id = $1`, [userId, days]);

describe('pruning processed subscription events', () => {
  it("drops old rows but keeps each user's latest applied event, so a late replay stays stale and a recent row stays", async () => {
    const { user, body } = await registered(identity);
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const activated = parseSubscriptionEvent(subscriptionEvent('activated', user.id, { planType: 1, occurredAt: at(30), sequence: 1 }));
    const changed = parseSubscriptionEvent(subscriptionEvent('changed', user.id, { planType: 2, occurredAt: at(20), sequence: 3 }));
    // Overtaken by `changed` (a lower sequence); its clock says later, which must not matter.
    const overtaken = parseSubscriptionEvent(subscriptionEvent('changed', user.id, { planType: 1, occurredAt: at(15), sequence: 2 }));
    expect(await applySubscriptionEvent(identity.deps, activated)).toBe('applied');
    expect(await applySubscriptionEvent(identity.deps, changed)).toBe('applied');
    expect(await applySubscriptionEvent(identity.deps, overtaken)).toBe('stale');
    expect(await eventIdsOf(user.id)).toEqual([activated.id, overtaken.id, changed.id]);

    const { user: recent } = await registered(identity);
    const recentEvent = parseSubscriptionEvent(subscriptionEvent('activated', recent.id, { occurredAt: at(40), sequence: 1 }));
    const recentLater = parseSubscriptionEvent(subscriptionEvent('changed', recent.id, { occurredAt: at(35), sequence: 2 }));
    expect(await applySubscriptionEvent(identity.deps, recentEvent)).toBe('applied');
    expect(await applySubscriptionEvent(identity.deps, recentLater)).toBe('applied');

    await age(user.id, 31);
    expect(await pruneProcessedEvents(identity.db, 30)).toBeGreaterThanOrEqual(2);
    expect(await eventIdsOf(user.id)).toEqual([changed.id]); // the latest applied one stays
    expect(await eventIdsOf(recent.id)).toEqual([recentEvent.id, recentLater.id]); // within the retention

    // Replays after pruning: the pruned ones are older than the kept one, so they change nothing.
    const version = (await findRow(identity.db, body.email))!.version;
    expect(await applySubscriptionEvent(identity.deps, activated)).toBe('stale');
    expect(await applySubscriptionEvent(identity.deps, overtaken)).toBe('stale');
    expect(await applySubscriptionEvent(identity.deps, changed)).toBe('duplicate');
    expect(await findRow(identity.db, body.email)).toMatchObject({ plan_type: 2, version });
  });

  it('keeps a lone old event: it is the only thing that says which event is the newest', async () => {
    const { user } = await registered(identity);
    const only = parseSubscriptionEvent(subscriptionEvent('activated', user.id, { sequence: 1 }));
    expect(await applySubscriptionEvent(identity.deps, only)).toBe('applied');
    await age(user.id, 400);
    await pruneProcessedEvents(identity.db, 30);
    expect(await eventIdsOf(user.id)).toEqual([only.id]);
    expect(await applySubscriptionEvent(identity.deps, only)).toBe('duplicate');
  });
});
