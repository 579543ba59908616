import { describe, expect, it } from '@jest/globals';
import { keysConfigSchema } from '@acs/keys-service';

const base = { INTERNAL_SECRET: 'x'.repeat(32) };

describe('keys configuration: a ceiling wherever the gateway has default limits', () => {
  it.each([
    ['RATE_LIMITS_LIVE', { RATE_LIMITS_LIVE: '100/1s,1000000/1d' }],
    ['RATE_LIMITS_TEST', { RATE_LIMITS_TEST: '10/1s' }],
  ])('refuses %s without RATE_LIMIT_CEILING, naming the variables (users could lift their keys above the default)', (_name, env) => {
    const result = keysConfigSchema.safeParse({ ...base, ...env });
    expect(result.success).toBe(false);
    const issue = result.error!.issues.find((i) => i.path[0] === 'RATE_LIMIT_CEILING');
    expect(issue?.message).toMatch(/RATE_LIMIT_CEILING is required when the gateway has default limits \(RATE_LIMITS_LIVE/);
    expect(issue?.message).toContain('RATE_LIMITS_TEST');
  });

  it('starts with a ceiling, or without defaults (no limits at all: nothing to lift)', () => {
    expect(keysConfigSchema.safeParse({ ...base, RATE_LIMITS_LIVE: '100/1s', RATE_LIMIT_CEILING: '100/1s' }).success).toBe(true);
    expect(keysConfigSchema.safeParse({ ...base, RATE_LIMITS_LIVE: '', RATE_LIMITS_TEST: '' }).success).toBe(true);
    expect(keysConfigSchema.safeParse(base).success).toBe(true);
  });
});
