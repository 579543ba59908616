import type { SlotCommands, SlotReplies } from '@acs/cache';
import { apiKeyCacheKey, authzCacheKey } from '@acs/contracts';

/** What one request's exchange carries, before it is cut into hash slots. */
export interface ExchangePlan {
  key: string;
  /** Counters in the key's slot: the limiter's previous periods to read and current ones to increment. */
  keyCounters: SlotCommands | null;
  /** The user the token claims (user routes). */
  userId: number | undefined;
  /** The key's owner, whose quota counts the request (issue 29); may be the claimed user. */
  ownerId: number | undefined;
  /** The owner's quota counters to increment (in the owner's slot), or null. */
  ownerIncrements: readonly string[] | null;
}

/** What the exchange answered: the raw entries, the limiter's counters and the quota's counts. */
export interface Exchanged {
  key: string | null;
  user: string | null;
  owner: string | null;
  counters: SlotReplies | null;
  ownerCounts: number[] | null;
}

/**
 * The request's commands by hash slot (Redis Cluster: each group is single-slot): the key's entry and limiter
 * counters; the claimed user's entry; the owner's entry and quota counters, joined with the user's group when
 * the owner is that user (the usual case: a user's own key and token).
 */
export function slotsOf(plan: ExchangePlan): SlotCommands[] {
  const { keyCounters, userId, ownerId } = plan;
  const increments = plan.ownerIncrements ?? [];
  const groups: SlotCommands[] = [
    keyCounters
      ? { reads: [apiKeyCacheKey(plan.key), ...keyCounters.reads], increments: keyCounters.increments }
      : { reads: [apiKeyCacheKey(plan.key)], increments: [] },
  ];
  if (userId !== undefined) groups.push({ reads: [authzCacheKey(userId)], increments: ownerId === userId ? increments : [] });
  if (ownerId !== undefined && ownerId !== userId) groups.push({ reads: [authzCacheKey(ownerId)], increments });
  return groups;
}

export function exchanged(plan: ExchangePlan, replies: SlotReplies[]): Exchanged {
  const keySlot = replies[0]!;
  const userSlot = plan.userId === undefined ? undefined : replies[1];
  const ownerSlot = plan.ownerId === undefined ? undefined : plan.ownerId === plan.userId ? userSlot : replies.at(-1);
  return {
    key: keySlot.values[0] ?? null,
    user: userSlot?.values[0] ?? null,
    owner: ownerSlot?.values[0] ?? null,
    counters: plan.keyCounters ? { values: keySlot.values.slice(1), counts: keySlot.counts } : null,
    ownerCounts: plan.ownerIncrements && ownerSlot ? ownerSlot.counts : null,
  };
}
