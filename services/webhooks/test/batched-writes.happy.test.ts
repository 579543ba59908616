import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Db } from '@acs/db';
import type { TestDatabase } from '@acs/testing';
import { claimDue } from '../src/data-access/claim-due.js';
import { fanOutEvents, type FanOutEvent } from '../src/data-access/fan-out.js';
import { recordOutcomes, type AttemptOutcome } from '../src/data-access/record-outcomes.js';
import { migratedDatabase, newUserId } from './harness.js';

// The statements that write many deliveries at once (a group of events, a group of outcomes) and
// claim with per-endpoint caps, on real PostgreSQL: the sender and the consumer rely on these rows.
let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  ({ database, db } = await migratedDatabase('webhooks_batched'));
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

async function endpoint(userId: number, events = ['api_key.created']): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO endpoints (user_id, url, events, secret_box) VALUES ($1, 'http://127.0.0.1:1/x', $2, 'sealed') RETURNING id`,
    [userId, events],
  );
  return rows[0]!.id;
}

const event = (userId: number, webhookType = 'api_key.created'): FanOutEvent => ({
  id: randomUUID(),
  busType: 'api_key.created.v1',
  webhookType,
  userId,
  body: JSON.stringify({ type: webhookType, n: userId }),
});

async function deliveriesOf(endpointId: string) {
  const { rows } = await db.query<{ id: string; status: string; attempts: number; claim_token: string | null; last_status: number | null }>(
    'SELECT id, status, attempts, claim_token, last_status FROM deliveries WHERE endpoint_id = $1 ORDER BY created_at, id',
    [endpointId],
  );
  return rows;
}

describe('fanning out a group of events in one statement', () => {
  it('makes a delivery per subscribed endpoint of each event, and nothing for a group seen before', async () => {
    const [alice, bob, nobody] = [newUserId(), newUserId(), newUserId()];
    const [a1, a2, b1] = [await endpoint(alice), await endpoint(alice), await endpoint(bob, ['api_key.revoked'])];
    const events = [event(alice), event(bob, 'api_key.revoked'), event(nobody), event(bob)];

    expect(await fanOutEvents(db, events)).toEqual([2, 1, 0, 0]);
    expect(await fanOutEvents(db, events)).toEqual([null, null, null, null]);
    expect((await deliveriesOf(a1)).length + (await deliveriesOf(a2)).length).toBe(2);
    expect(await deliveriesOf(b1)).toHaveLength(1);
    const { rows } = await db.query<{ deliveries: number }>('SELECT deliveries FROM processed_events WHERE event_id = $1', [events[0]!.id]);
    expect(rows[0]!.deliveries).toBe(2);
  });
});

describe('claiming due deliveries in one statement', () => {
  it('gives no endpoint more than its free slots, counting those already in flight, and at most the limit', async () => {
    const [busy, quiet] = [await endpoint(newUserId()), await endpoint(newUserId())];
    for (let i = 0; i < 5; i++) await fanOutEvents(db, [{ ...event(0), userId: await userOf(busy) }]);
    await fanOutEvents(db, [{ ...event(0), userId: await userOf(quiet) }]);
    const options = { limit: 10, leaseMs: 60_000, perEndpoint: 2 };

    const first = await claimDue(db, { ...options, busyEndpoints: new Map([[busy, 1]]) });
    expect(first.filter((d) => d.endpointId === busy)).toHaveLength(1);
    expect(first.filter((d) => d.endpointId === quiet)).toHaveLength(1);
    expect(first.every((d) => d.attempt === 1 && d.claimToken.length > 0)).toBe(true);

    expect(await claimDue(db, { ...options, busyEndpoints: new Map([[busy, 2]]) })).toEqual([]);
    const capped = await claimDue(db, { ...options, limit: 1, busyEndpoints: new Map() });
    expect(capped).toHaveLength(1);
    expect(capped[0]!.endpointId).toBe(busy);
    // Claimed rows are not due again until their lease ends.
    const rest = await claimDue(db, { ...options, busyEndpoints: new Map() });
    expect(rest.map((d) => d.endpointId)).toEqual([busy, busy]);
  });
});

async function userOf(endpointId: string): Promise<number> {
  const { rows } = await db.query<{ user_id: string }>('SELECT user_id FROM endpoints WHERE id = $1', [endpointId]);
  return Number(rows[0]!.user_id);
}

describe('recording a group of outcomes in one statement', () => {
  it('settles each claim still current, logs every attempt of an existing delivery, and disables the endpoints that gave up', async () => {
    const [ok, dead] = [await endpoint(newUserId()), await endpoint(newUserId())];
    for (let i = 0; i < 3; i++) await fanOutEvents(db, [{ ...event(0), userId: await userOf(ok) }]);
    await fanOutEvents(db, [{ ...event(0), userId: await userOf(dead) }]);
    const claimed = await claimDue(db, { limit: 10, leaseMs: 60_000, perEndpoint: 5, busyEndpoints: new Map() });
    const mine = claimed.filter((d) => d.endpointId === ok || d.endpointId === dead);
    expect(mine).toHaveLength(4);
    const [delivered, retried, stale] = mine.filter((d) => d.endpointId === ok);
    const givenUp = mine.find((d) => d.endpointId === dead)!;
    const base = { attempt: 1, startedAt: new Date(), durationMs: 12 };
    const outcomes: AttemptOutcome[] = [
      {
        ...base,
        deliveryId: delivered!.id,
        claimToken: delivered!.claimToken,
        status: 204,
        error: null,
        settlement: { kind: 'delivered' },
      },
      {
        ...base,
        deliveryId: retried!.id,
        claimToken: retried!.claimToken,
        status: 500,
        error: 'http_status',
        settlement: { kind: 'retry', retryInMs: 60_000 },
      },
      // A claim whose lease ended and was taken over: logged, but it settles nothing.
      { ...base, deliveryId: stale!.id, claimToken: randomUUID(), status: 204, error: null, settlement: { kind: 'delivered' } },
      {
        ...base,
        deliveryId: givenUp.id,
        claimToken: givenUp.claimToken,
        status: null,
        error: 'timeout',
        settlement: { kind: 'failed', disableReason: 'gave up' },
      },
      // A delivery deleted meanwhile (its endpoint was): no row to log or settle, and no error for the others.
      { ...base, deliveryId: randomUUID(), claimToken: randomUUID(), status: 204, error: null, settlement: { kind: 'delivered' } },
    ];

    const applied = await recordOutcomes(db, outcomes);

    expect([...applied].sort()).toEqual([delivered!.id, retried!.id, givenUp.id].sort());
    const rows = new Map((await deliveriesOf(ok)).map((row) => [row.id, row]));
    expect(rows.get(delivered!.id)).toMatchObject({ status: 'delivered', claim_token: null, last_status: 204 });
    expect(rows.get(retried!.id)).toMatchObject({ status: 'pending', claim_token: null, last_status: 500 });
    expect(rows.get(stale!.id)).toMatchObject({ status: 'pending', claim_token: stale!.claimToken });
    expect((await deliveriesOf(dead))[0]).toMatchObject({ status: 'failed' });
    const { rows: endpoints } = await db.query<{ id: string; enabled: boolean; disabled_reason: string | null }>(
      'SELECT id, enabled, disabled_reason FROM endpoints WHERE id = ANY($1::uuid[])',
      [[ok, dead]],
    );
    expect(new Map(endpoints.map((e) => [e.id, [e.enabled, e.disabled_reason]]))).toEqual(
      new Map([
        [ok, [true, null]],
        [dead, [false, 'gave up']],
      ]),
    );
    const { rows: logged } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM delivery_attempts WHERE delivery_id = ANY($1::uuid[])',
      [outcomes.map((o) => o.deliveryId)],
    );
    expect(logged[0]!.n).toBe(4);
  });
});
