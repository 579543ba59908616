import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { hashSecret, secretMatchesHash } from '@acs/auth';
import { HmacSha256 } from '../src/hmac-sha256.js';

const reference = (key: string | Buffer, message: string): string => createHmac('sha256', key).update(message).digest('base64url');

// Keys shorter than, equal to and longer than SHA-256's 64-byte block (RFC 2104 hashes the last kind first).
const KEYS: (string | Buffer)[] = [
  'k',
  's'.repeat(40),
  'x'.repeat(64),
  'y'.repeat(65),
  'clé interne ✓ '.repeat(10),
  randomBytes(64),
  randomBytes(200),
];
const MESSAGES = [
  '',
  'GET\n/api/Dac?page=1\neyJyZXF1ZXN0SWQiOiJyIn0',
  `POST\n/api/Dac/import?dryRun=true\n${'a'.repeat(400)}`,
  'ünïcödé 🎧 and a lone surrogate \ud800 here',
  `long\n${'z'.repeat(20_000)}`, // past the reused buffer: takes the allocating path
  '多字节'.repeat(3000), // 9,000 characters of 3 UTF-8 bytes each: also past it
];

describe('HmacSha256', () => {
  it('computes exactly what createHmac computes, for every kind of key and message', () => {
    for (const key of KEYS) {
      const mac = new HmacSha256(key);
      for (const message of MESSAGES) expect(mac.sign(message)).toBe(reference(key, message));
    }
  });

  it('keeps no state between calls: a long message does not change the next short one', () => {
    const mac = new HmacSha256('s'.repeat(40));
    const short = 'GET\n/api/Dac\nabc';
    const before = mac.sign(short);
    mac.sign('q'.repeat(15_000));
    expect(mac.sign(short)).toBe(before);
    expect(before).toBe(reference('s'.repeat(40), short));
  });

  it('agrees with createHmac on random inputs', () => {
    for (let i = 0; i < 200; i++) {
      const key = randomBytes(1 + (i % 90));
      const message = randomBytes(i * 7).toString('latin1');
      expect(new HmacSha256(key).sign(message)).toBe(reference(key, message));
    }
  });

  it('verifies its own signatures and nothing else', () => {
    const mac = new HmacSha256('s'.repeat(40));
    const message = 'GET\n/api/Dac\ncontext';
    const signature = mac.sign(message);
    expect(mac.verify(message, signature)).toBe(true);
    expect(mac.verify(`${message}x`, signature)).toBe(false);
    expect(new HmacSha256('t'.repeat(40)).verify(message, signature)).toBe(false);
    // A different last character, a truncation, an extension, characters outside base64url, the empty string.
    const flipped = signature.slice(0, 42) + (signature[42] === 'A' ? 'Q' : 'A');
    for (const bad of [flipped, signature.slice(0, 42), `${signature}A`, '!'.repeat(43), `${signature.slice(0, 40)}***`, '']) {
      expect(mac.verify(message, bad)).toBe(false);
    }
  });
});

describe('secretMatchesHash', () => {
  it('accepts the stored hash as bytes or base64url and rejects near misses', () => {
    const secret = randomBytes(32).toString('base64url');
    const stored = hashSecret(secret);
    const storedBytes = Buffer.from(stored, 'base64url');
    expect(secretMatchesHash(secret, stored)).toBe(true);
    expect(secretMatchesHash(secret, storedBytes)).toBe(true);
    expect(secretMatchesHash(secret.slice(1), storedBytes)).toBe(false);
    expect(secretMatchesHash(secret, storedBytes.subarray(0, 31))).toBe(false);
    expect(secretMatchesHash('', storedBytes)).toBe(false);
    // One check does not leak into the next (the comparison buffer is reused).
    expect(secretMatchesHash('wrong', storedBytes)).toBe(false);
    expect(secretMatchesHash(secret, storedBytes)).toBe(true);
  });
});
