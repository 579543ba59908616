import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { openSecret, parseTotpKey, sealSecret } from '../src/domain/totp-secret-box.js';

// TOTP secrets at rest (issue 32): AES-256-GCM, the user id authenticated with the ciphertext.
const key = parseTotpKey(randomBytes(32).toString('base64'));
const secret = randomBytes(20);

describe('the TOTP secret box', () => {
  it('seals to 48 bytes that do not hold the secret, and opens for the same user only', () => {
    const sealed = sealSecret(key, 7, secret);
    expect(sealed).toHaveLength(48);
    expect(sealed.includes(secret)).toBe(false);
    expect(openSecret(key, 7, sealed).equals(secret)).toBe(true);
    expect(() => openSecret(key, 8, sealed)).toThrow();
    expect(() => openSecret(parseTotpKey(randomBytes(32).toString('base64')), 7, sealed)).toThrow();
    const flipped = Buffer.from(sealed);
    flipped[20]! ^= 1;
    expect(() => openSecret(key, 7, flipped)).toThrow();
    // Two seals of one secret differ (a fresh IV each time).
    expect(sealSecret(key, 7, secret).equals(sealed)).toBe(false);
  });

  it('reads a 20-byte value as a secret stored before encryption; refuses a key that is not 32 bytes', () => {
    expect(openSecret(key, 7, secret).equals(secret)).toBe(true);
    expect(() => parseTotpKey('c2hvcnQ=')).toThrow(/32 random bytes/);
  });
});
