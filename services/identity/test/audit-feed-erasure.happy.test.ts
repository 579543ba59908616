import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Queryable } from '@acs/db';
import { insertFeedEntry } from '../src/data-access/audit-feed-repository.js';
import { eraseAccount } from '../src/data-access/account-erasure-repository.js';
import { waitFor } from '@acs/testing';
import { registered, startIdentity, type IdentityHarness } from './harness.js';

// Issue 32 item 5: an entry relayed from keys or billing while the owner's account is being deleted
// must not land in the feed after the erasure emptied it (it would bring a key's name back).
let identity: IdentityHarness;
beforeAll(async () => {
  identity = await startIdentity();
});
afterAll(async () => identity.stop());

function keysEntry(userId: number, entryId: number) {
  return {
    service: 'keys',
    entryId,
    occurredAt: new Date().toISOString(),
    actor: { type: 'user' as const, id: String(userId), requestId: null, clientAddress: null },
    action: 'api_key.created',
    targetType: 'api_key',
    targetId: `key-${entryId}`,
    userId,
    before: null,
    after: { name: "Lovelace's laptop" },
  };
}

const feedOf = async (identity: IdentityHarness, userId: number) =>
  (await identity.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_feed WHERE user_id = $1', [userId])).rows[0]!.n;

/** Resolves once some backend of the identity database waits on a lock. */
const someoneWaitsOnALock = (db: IdentityHarness['db']) =>
  waitFor(
    'a backend waiting on a lock',
    async () =>
      (
        await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        )
      ).rows[0]!.n > 0,
    2_000,
  );

/**
 * Runs `holding` in a transaction of the identity database that stays open, then `contending`; once
 * `contending` waits on a lock `holding` took, commits `holding`, and resolves when both are done.
 */
async function contend(
  identity: IdentityHarness,
  holding: (tx: Queryable) => Promise<void>,
  contending: () => Promise<void>,
): Promise<void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held!: () => void;
  const holds = new Promise<void>((resolve) => {
    held = resolve;
  });
  const committed = identity.db.transaction(async (tx) => {
    await holding(tx);
    held();
    await released;
  });
  await Promise.race([holds, committed]);
  const contender = contending();
  try {
    await someoneWaitsOnALock(identity.db);
  } finally {
    release();
    await committed;
  }
  await contender;
}

describe("the account page's feed and a deletion in flight", () => {
  it('an entry arriving while the deletion has not committed waits for it and is then left out', async () => {
    const { user } = await registered(identity);
    await contend(
      identity,
      (tx) => eraseAccount(tx, user.id),
      () => insertFeedEntry(identity.db, keysEntry(user.id, 2_000_000 + user.id)),
    );
    expect(await feedOf(identity, user.id)).toBe(0);
  });

  it('an entry that got in first is erased by the deletion that waited for it', async () => {
    const { user } = await registered(identity);
    await contend(
      identity,
      (tx) => insertFeedEntry(tx, keysEntry(user.id, 3_000_000 + user.id)),
      () => identity.db.transaction((tx) => eraseAccount(tx, user.id)),
    );
    expect(await feedOf(identity, user.id)).toBe(0);
  });

  it('entries of a live account still land', async () => {
    const { user } = await registered(identity);
    const before = await feedOf(identity, user.id);
    await insertFeedEntry(identity.db, keysEntry(user.id, 4_000_000 + user.id));
    expect(await feedOf(identity, user.id)).toBe(before + 1);
  });
});
