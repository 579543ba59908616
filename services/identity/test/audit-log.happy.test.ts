import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createMemoryBus, type MemoryBus } from '@acs/bus';
import { AUDIT_RECORDED_EVENT_TYPE, AUDIT_RECORDED_ROUTING_KEY, auditLogResponseSchema } from '@acs/contracts';
import { signedFetch, waitFor } from '@acs/testing';
import { pruneFeed } from '../src/data-access/audit-feed-repository.js';
import { INTERNAL_SECRET, registered, startIdentity, type IdentityHarness } from './harness.js';

// Issue 30: GET /api/AuditLog answers the signed-in user's own trail from identity's feed: its own
// entries and those keys and billing publish (audit.recorded), newest first, with a cursor and filters.
let bus: MemoryBus;
let identity: IdentityHarness;
beforeAll(async () => {
  bus = createMemoryBus({ delayScale: 0.001 });
  identity = await startIdentity({ bus });
});
afterAll(async () => {
  await identity.stop();
  await bus.close();
});

let entryId = 1000;
/** The changes happened one second apart, after the registrations. */
const base = Date.now() + 1000;
function recorded(userId: number, action: string, targetId: string, sameEntryAs?: number) {
  entryId += 1;
  const id = sameEntryAs ?? entryId;
  const eventId = randomUUID();
  const occurredAt = new Date(base + id * 1000).toISOString();
  return {
    id: eventId,
    type: AUDIT_RECORDED_EVENT_TYPE,
    occurredAt,
    payload: {
      eventId,
      service: 'keys',
      entryId: id,
      occurredAt,
      actor: { type: 'user', id: String(userId), requestId: 'req-k', clientAddress: '198.51.100.1' },
      action,
      targetType: 'api_key',
      targetId,
      userId,
      before: null,
      after: { name: 'k', scopes: ['read:devices'] },
    },
  };
}

const read = (userId: number, query = '') =>
  signedFetch(identity.url, INTERNAL_SECRET, 'GET', `/api/AuditLog${query}`, {
    audience: 'identity',
    context: { keyId: 'dashboard', scopes: ['system:full-access'], userId, role: 0 },
  });
const feedCount = async () => Number((await identity.db.query<{ n: string }>('SELECT count(*) AS n FROM audit_feed')).rows[0]!.n);

describe('GET /api/AuditLog', () => {
  it("answers the user's own entries of every service, newest first, a page at a time, filtered by action and target", async () => {
    const { user } = await registered(identity);
    const { user: other } = await registered(identity);
    const before = await feedCount();
    const created = recorded(user.id, 'api_key.created', 'key-1');
    await bus.publish(AUDIT_RECORDED_ROUTING_KEY, created);
    await bus.publish(AUDIT_RECORDED_ROUTING_KEY, recorded(user.id, 'api_key.revoked', 'key-1'));
    await bus.publish(AUDIT_RECORDED_ROUTING_KEY, recorded(other.id, 'api_key.created', 'key-2'));
    // A redelivery of the same entry (same service and entry id, a new event id) adds nothing.
    await bus.publish(AUDIT_RECORDED_ROUTING_KEY, recorded(user.id, 'api_key.created', 'key-1', created.payload.entryId));
    await waitFor('the three entries in the feed', async () => (await feedCount()) === before + 3);

    const first = auditLogResponseSchema.parse(await (await read(user.id, '?pageSize=2')).json());
    expect(first.items.map((item) => [item.service, item.action])).toEqual([
      ['keys', 'api_key.revoked'],
      ['keys', 'api_key.created'],
    ]);
    expect(first.items[0]!.actor).toEqual({ type: 'user', id: String(user.id), requestId: 'req-k', clientAddress: '198.51.100.1' });
    const second = auditLogResponseSchema.parse(await (await read(user.id, `?pageSize=2&cursor=${first.nextCursor}`)).json());
    expect(second.items.map((item) => [item.service, item.action])).toEqual([['identity', 'account.created']]);
    expect(second.nextCursor).toBeNull();

    const revoked = auditLogResponseSchema.parse(await (await read(user.id, '?action=api_key.revoked')).json());
    expect(revoked.items.map((item) => item.targetId)).toEqual(['key-1']);
    const account = auditLogResponseSchema.parse(await (await read(user.id, `?targetType=account&targetId=${user.id}`)).json());
    expect(account.items.map((item) => item.action)).toEqual(['account.created']);
    const theirs = auditLogResponseSchema.parse(await (await read(other.id)).json());
    expect(theirs.items.map((item) => item.targetId)).toEqual(['key-2', String(other.id)]);
  });

  it('answers 400 in the error shape for a bad cursor, page size or unknown parameter', async () => {
    const { user } = await registered(identity);
    for (const query of ['?cursor=abc', '?pageSize=0', '?pageSize=1000', '?userId=1']) {
      const response = await read(user.id, query);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
  });

  it('retention deletes feed entries with the trail they copy', async () => {
    const { user } = await registered(identity);
    await identity.db.query("UPDATE audit_feed SET occurred_at = now() - interval '40 days' WHERE user_id = $1", [user.id]);
    expect(await pruneFeed(identity.db, 30)).toBe(1);
    expect((await (await read(user.id)).json()) as unknown).toEqual({ items: [], nextCursor: null });
  });
});
