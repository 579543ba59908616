import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { classifyApiSecret, generateApiSecret, generateApiKey, secretChecksum } from '@acs/auth';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The checksum's 6 characters back to a number, written independently of the module. */
const decode = (text: string): number => [...text].reduce((value, char) => value * 62 + BASE62.indexOf(char), 0);

/** `secret` with the character at `at` replaced by another base62 character. */
const flip = (secret: string, at: number): string => {
  const next = BASE62[(BASE62.indexOf(secret[at]!) + 1) % 62]!;
  return secret.slice(0, at) + next + secret.slice(at + 1);
};

describe('API secret format (docs/key-format.md)', () => {
  it('is <prefix>_<environment>_<30 base62><6 base62 CRC32 of the rest>', () => {
    const secret = generateApiSecret('acs', 'live');
    expect(secret).toMatch(/^acs_live_[A-Za-z0-9]{36}$/);
    expect(decode(secret.slice(-6))).toBe(crc32(secret.slice(0, -6)));
    expect(generateApiSecret('acs', 'test')).toMatch(/^acs_test_[A-Za-z0-9]{36}$/);
  });

  it('carries at least 160 random bits and never repeats', () => {
    expect(30 * Math.log2(62)).toBeGreaterThan(160);
    const secrets = new Set(Array.from({ length: 2000 }, () => generateApiSecret('acs', 'live')));
    expect(secrets.size).toBe(2000);
  });

  it('encodes every CRC32 in exactly 6 characters, small and large', () => {
    expect(secretChecksum('')).toBe('AAAAAA'); // crc32('') is 0
    for (const text of ['a', 'acs_live_x', 'z'.repeat(100)]) {
      const checksum = secretChecksum(text);
      expect(checksum).toHaveLength(6);
      expect(decode(checksum)).toBe(crc32(text));
    }
  });

  it('accepts a generated secret for its own key environment', () => {
    for (let i = 0; i < 200; i++) {
      expect(classifyApiSecret(generateApiSecret('acs', 'live'), 'acs', 'live')).toBe('valid');
      expect(classifyApiSecret(generateApiSecret('acme1', 'test'), 'acme1', 'test')).toBe('valid');
    }
  });

  it('refuses any one changed character, a wrong environment, length or alphabet', () => {
    const secret = generateApiSecret('acs', 'live');
    for (let at = 9; at < secret.length; at++) expect(classifyApiSecret(flip(secret, at), 'acs', 'live')).toBe('invalid');
    expect(classifyApiSecret(secret, 'acs', 'test')).toBe('invalid');
    expect(classifyApiSecret(secret.replace('acs_live_', 'acs_test_'), 'acs', 'live')).toBe('invalid');
    expect(classifyApiSecret(`${secret}A`, 'acs', 'live')).toBe('invalid');
    expect(classifyApiSecret(secret.slice(0, -1), 'acs', 'live')).toBe('invalid');
    expect(classifyApiSecret(`${secret.slice(0, 20)}-${secret.slice(21)}`, 'acs', 'live')).toBe('invalid');
    expect(classifyApiSecret(`${secret.slice(0, -1)}é`, 'acs', 'live')).toBe('invalid');
    expect(classifyApiSecret('acs_live_', 'acs', 'live')).toBe('invalid');
  });

  it('leaves legacy secrets (no `<prefix>_live_` / `<prefix>_test_` start) to the hash check', () => {
    for (let i = 0; i < 200; i++) expect(classifyApiSecret(randomBytes(32).toString('base64url'), 'acs', 'live')).toBe('legacy');
    expect(classifyApiSecret('s'.repeat(40), 'acs', 'live')).toBe('legacy');
    expect(classifyApiSecret('acs_prod_0123456789012345678901234567890123', 'acs', 'live')).toBe('legacy');
    expect(classifyApiSecret('acsx_live_0123456789', 'acs', 'live')).toBe('legacy');
    // Another deployment's prefix is not this key's format: the hash decides (and refuses).
    expect(classifyApiSecret(generateApiSecret('other', 'live'), 'acs', 'live')).toBe('legacy');
  });

  it('never reads as a key id, and a key id never as a secret', () => {
    const key = generateApiKey('acs', 'live');
    expect(classifyApiSecret(key, 'acs', 'live')).toBe('invalid');
  });
});
