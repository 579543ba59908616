import { describe, expect, it } from '@jest/globals';
import { webhooksConfigSchema } from '../src/config.js';
import { previousBoxKeys, secretBox } from '../src/domain/secret-box.js';

// WEBHOOKS_SECRET_KEY_PREVIOUS may name several keys: a rotation started before the last one's reseal ran, or
// `npm start` keeping its derived key readable beside an operator's own previous key.
const previousField = webhooksConfigSchema.shape.WEBHOOKS_SECRET_KEY_PREVIOUS;
const first = 'the-first-webhooks-key-of-this-test-0123456789';
const second = 'the-second-webhooks-key-of-this-test-012345678';
const third = 'the-third-webhooks-key-of-this-test-0123456789';

describe('the previous webhooks keys', () => {
  it('are one key or several, comma-separated, each of at least 32 characters', () => {
    expect(previousField.safeParse(first).success).toBe(true);
    expect(previousField.safeParse(`${first},${second}`).success).toBe(true);
    expect(previousField.safeParse(undefined).success).toBe(true);
    const short = previousField.safeParse(`${first},too-short`);
    expect(short.success).toBe(false);
    expect(short.error?.issues[0]?.message).toMatch(/at least 32 characters/);
    expect(previousField.safeParse(' , ').success).toBe(false);
    expect(previousBoxKeys({ WEBHOOKS_SECRET_KEY_PREVIOUS: ` ${first} ,${second},` })).toEqual([first, second]);
    expect(previousBoxKeys({})).toEqual([]);
  });

  it('each open what was sealed under it, and nothing new is sealed under them', () => {
    const underFirst = secretBox(first).seal('whsec_sealed-under-the-first');
    const underSecond = secretBox(second).seal('whsec_sealed-under-the-second');
    const box = secretBox(third, previousBoxKeys({ WEBHOOKS_SECRET_KEY_PREVIOUS: `${second},${first}` }));
    expect(box.open(underFirst)).toBe('whsec_sealed-under-the-first');
    expect(box.open(underSecond)).toBe('whsec_sealed-under-the-second');
    expect(secretBox(third).tryOpen(box.seal('whsec_new'))).toBe('whsec_new');
    expect(secretBox(second, [first]).tryOpen(box.seal('whsec_new'))).toBeNull();
    expect(secretBox(third, [second]).tryOpen(underFirst)).toBeNull();
  });
});
