import { describe, it, expect } from '@jest/globals';
import { addressBucket } from '../src/domain/client-address.js';
import { accountFailuresKey, addressFailuresKey } from '../src/domain/login-throttle.js';

describe('addressBucket (the per-address throttle key)', () => {
  it.each<[string | undefined, string]>([
    ['203.0.113.9', '203.0.113.9'],
    ['2001:db8:abcd:12::1', '2001:db8:abcd:12::/64'],
    ['2001:0db8:abcd:0012:ffff:1:2:3', '2001:db8:abcd:12::/64'],
    ['2001:DB8:ABCD:12::FFFF', '2001:db8:abcd:12::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['::ffff:c633:6407', '198.51.100.7'],
    [undefined, 'unknown'],
    ['', 'unknown'],
    ['not-an-ip', 'unknown'],
    ['203.0.113.9:443', 'unknown'],
    ['1.2.3.4\r\nINJECT', 'unknown'],
  ])('%j → %s', (input, bucket) => {
    expect(addressBucket(input)).toBe(bucket);
  });

  it('builds the Redis keys the brief names, with no raw e-mail', () => {
    expect(accountFailuresKey('Ada@Example.test')).toBe(accountFailuresKey('ada@example.TEST'));
    expect(accountFailuresKey('ada@example.test')).toMatch(/^login-fail:acct:\{[0-9a-f]{64}\}$/);
    expect(addressFailuresKey('203.0.113.9')).toBe('login-fail:addr:{203.0.113.9}');
    expect(addressFailuresKey(undefined)).toBe('login-fail:addr:{unknown}');
  });
});
