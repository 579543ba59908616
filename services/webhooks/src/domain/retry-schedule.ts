/**
 * The waits between attempts of one delivery and when it gives up (docs/api-contract.md,
 * "Webhooks"). Written as `5s,5m,30m,2h,5h,10h`: the wait after failed attempt n is a uniformly
 * random point in [0, entry n] ("full jitter": endpoints that failed together do not all come
 * back at the same instant), the last entry repeating. A delivery gives up at its first failure
 * once `giveUpAfterMs` has passed since its schedule started, so it is tried for at least that long.
 */
export interface RetrySchedule {
  delaysMs: number[];
  giveUpAfterMs: number;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `5s` -> 5000; null when it is not a whole number with a unit of ms, s, m, h, d. */
export function parseDuration(text: string): number | null {
  const match = /^\s*(\d{1,9})\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (!match) return null;
  const ms = Number(match[1]) * UNIT_MS[match[2]!]!;
  return ms > 0 ? ms : null;
}

/** `5s,5m,30m` -> [5000, 300000, 1800000]; a string saying what is wrong otherwise. */
export function parseDelays(text: string): number[] | string {
  const delays: number[] = [];
  for (const part of text.split(',')) {
    const ms = parseDuration(part);
    if (ms === null) return `"${part.trim()}" is not a positive duration such as 500ms, 5s, 5m, 2h or 1d`;
    delays.push(ms);
  }
  return delays;
}

/** The ceiling of the wait after failed attempt `failures` (1-based): the schedule's entry, the last repeating. */
export function delayCeilingMs(failures: number, delaysMs: readonly number[]): number {
  const index = Math.min(Math.max(failures, 1), delaysMs.length) - 1;
  return delaysMs[index]!;
}

/** Full jitter: a uniformly random wait in [0, ceiling]. */
export function retryDelayMs(failures: number, delaysMs: readonly number[], random: () => number = Math.random): number {
  return Math.round(random() * delayCeilingMs(failures, delaysMs));
}

/** Whether a failure at `now` ends the delivery (and disables its endpoint) rather than scheduling another attempt. */
export function givesUp(scheduleStartedAt: Date, now: Date, schedule: RetrySchedule): boolean {
  return now.getTime() - scheduleStartedAt.getTime() >= schedule.giveUpAfterMs;
}
