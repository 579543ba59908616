import { describe, expect, it } from '@jest/globals';
import * as OTPAuth from 'otpauth';
import { base32Encode, hotp, matchingStep, otpauthUri, timeStep } from '../src/domain/totp.js';

// RFC 6238 appendix B (SHA-1 key "12345678901234567890"): 8-digit values, of which a 6-digit code is the last 6.
const RFC_SECRET = Buffer.from('12345678901234567890', 'ascii');
const VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
];

describe('TOTP (node:crypto)', () => {
  it.each(VECTORS)('RFC 6238 test vector at T=%d', (time, eight) => {
    expect(hotp(RFC_SECRET, timeStep(time))).toBe(eight.slice(-6));
  });

  it('agrees with the otpauth package for random secrets and times, and accepts one step of drift only', () => {
    for (let i = 0; i < 50; i++) {
      const secret = Buffer.from(Array.from({ length: 20 }, () => Math.floor(Math.random() * 256)));
      const time = Math.floor(Math.random() * 2_000_000_000);
      const theirs = new OTPAuth.TOTP({
        secret: OTPAuth.Secret.fromBase32(base32Encode(secret)),
        algorithm: 'SHA1',
        digits: 6,
        period: 30,
      });
      const code = theirs.generate({ timestamp: time * 1000 });
      expect(hotp(secret, timeStep(time))).toBe(code);
      expect(matchingStep(secret, code, time + 30)).toBe(timeStep(time));
      const farCode = theirs.generate({ timestamp: (time + 90) * 1000 });
      if (
        farCode !== code &&
        farCode !== theirs.generate({ timestamp: (time + 30) * 1000 }) &&
        farCode !== theirs.generate({ timestamp: (time - 30) * 1000 })
      )
        expect(matchingStep(secret, farCode, time)).toBeNull();
    }
    expect(matchingStep(RFC_SECRET, '12345', 59)).toBeNull();
  });

  it('writes an otpauth:// URI an authenticator app reads', () => {
    const parsed = OTPAuth.URI.parse(otpauthUri(RFC_SECRET, 'ada+x@example.com', 'Audio Catalog'));
    expect(parsed).toMatchObject({ issuer: 'Audio Catalog', label: 'ada+x@example.com', digits: 6, period: 30, algorithm: 'SHA1' });
    expect(parsed.secret.base32).toBe(base32Encode(RFC_SECRET));
  });
});
