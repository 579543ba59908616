import type { RequestReads } from '@acs/cache';

/** Counters that give back one request by id (the in-process fallbacks). */
export interface LocalCounters {
  refund(id: string): void;
}

/**
 * Where a request was counted (a limit's or a quota's counters), so that a request refused afterwards, by a
 * later check or by the other of the two, is given back: only admitted requests count.
 */
export type Counted = { redis: readonly string[] } | { local: LocalCounters; ids: readonly string[] };

/** Gives back what was counted: DECRs sent without waiting, or the in-process counts. */
export function giveBackCounted(counted: readonly Counted[], reads: RequestReads | undefined): void {
  for (const item of counted) {
    if ('local' in item) for (const id of item.ids) item.local.refund(id);
    else reads?.decrement(item.redis);
  }
}
