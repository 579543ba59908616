import { describe, expect, it } from '@jest/globals';
import { delayCeilingMs, givesUp, parseDelays, parseDuration, retryDelayMs } from '../src/domain/retry-schedule.js';
import { webhooksConfigSchema } from '../src/config.js';

const DEFAULT = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];

describe('retry schedule', () => {
  it('reads durations with units', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration(' 5s ')).toBe(5_000);
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(parseDuration('0s')).toBeNull();
    expect(parseDuration('5')).toBeNull();
    expect(parseDelays('5s,5m,30m,2h,5h,10h')).toEqual(DEFAULT);
    expect(parseDelays('5s,soon')).toMatch(/"soon" is not a positive duration/);
  });

  it('is the default of the configuration, and a wrong schedule is refused naming the variable', () => {
    const base = { INTERNAL_SECRET: 'x'.repeat(32), WEBHOOKS_SECRET_KEY: 'y'.repeat(32) };
    expect(webhooksConfigSchema.parse(base).WEBHOOKS_RETRY_SCHEDULE).toEqual(DEFAULT);
    const wrong = webhooksConfigSchema.safeParse({ ...base, WEBHOOKS_RETRY_SCHEDULE: '5s,later' });
    expect(wrong.success).toBe(false);
    expect(wrong.error!.issues[0]!.path).toEqual(['WEBHOOKS_RETRY_SCHEDULE']);
    const lease = webhooksConfigSchema.safeParse({ ...base, WEBHOOKS_TIMEOUT_MS: '10000', WEBHOOKS_CLAIM_LEASE_MS: '5000' });
    expect(lease.success).toBe(false);
  });

  it('takes the entry of the failure, the last one repeating', () => {
    expect(delayCeilingMs(1, DEFAULT)).toBe(5_000);
    expect(delayCeilingMs(3, DEFAULT)).toBe(1_800_000);
    expect(delayCeilingMs(6, DEFAULT)).toBe(36_000_000);
    expect(delayCeilingMs(40, DEFAULT)).toBe(36_000_000);
  });

  it('jitters fully: anywhere in [0, ceiling]', () => {
    expect(retryDelayMs(2, DEFAULT, () => 0)).toBe(0);
    expect(retryDelayMs(2, DEFAULT, () => 0.5)).toBe(150_000);
    expect(retryDelayMs(2, DEFAULT, () => 0.999999)).toBeLessThanOrEqual(300_000);
    const spread = new Set(Array.from({ length: 50 }, () => retryDelayMs(4, DEFAULT)));
    expect(spread.size).toBeGreaterThan(40);
    for (const delay of spread) expect(delay).toBeLessThanOrEqual(7_200_000);
  });

  it('gives up only at a failure once the window since the schedule started has passed', () => {
    const schedule = { delaysMs: DEFAULT, giveUpAfterMs: 86_400_000 };
    const start = new Date('2026-01-01T00:00:00Z');
    expect(givesUp(start, new Date('2026-01-01T23:59:59Z'), schedule)).toBe(false);
    expect(givesUp(start, new Date('2026-01-02T00:00:00Z'), schedule)).toBe(true);
  });
});
