import { describe, expect, it } from '@jest/globals';
import {
  generateApiKey,
  generateApiSecret,
  grantsScope,
  hashSecret,
  parseApiKey,
  secretMatchesHash,
  CONTEXT_LIFETIME_SECONDS,
  signContext,
  splitScopeString,
  verifyContext,
} from '@acs/auth';

describe('API key format', () => {
  it('generates <prefix>_<environment>_<identifier> keys that parse back', () => {
    const key = generateApiKey('acs', 'test');
    expect(key).toMatch(/^acs_test_[A-Za-z0-9]{24}$/);
    expect(parseApiKey(key)).toEqual({ prefix: 'acs', environment: 'test', identifier: key.slice(9) });
  });

  it('never repeats identifiers', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateApiKey('acs', 'live')));
    expect(keys.size).toBe(2000);
  });

  it('rejects keys outside the format', () => {
    for (const bad of [
      '',
      'acs_live',
      'acs_prod_abcdefghijklmnopqrst',
      'ACS_live_abcdefghijklmnopqrst',
      'acs_live_abc',
      'acs_live_abcdefghijklmnop_qrst',
      'acs_live_abcdefghijklmnopqrs!',
    ]) {
      expect(parseApiKey(bad)).toBeNull();
    }
  });

  it('refuses an invalid prefix', () => {
    expect(() => generateApiKey('Bad_Prefix', 'live')).toThrow();
  });
});

describe('secrets', () => {
  it('are never stored in clear', () => {
    const secret = generateApiSecret('acs', 'live');
    const hash = hashSecret(secret);
    expect(hash).not.toContain(secret);
    expect(secretMatchesHash(secret, hash)).toBe(true);
    expect(secretMatchesHash(`${secret}x`, hash)).toBe(false);
    expect(secretMatchesHash(secret, 'not-a-hash')).toBe(false);
  });
});

describe('scopes', () => {
  it('applies the spec rules', () => {
    expect(grantsScope(['read:devices'], 'read:devices')).toBe(true);
    expect(grantsScope(['write:devices'], 'read:devices')).toBe(true);
    expect(grantsScope(['read:devices'], 'write:devices')).toBe(false);
    expect(grantsScope(['system:full-access'], 'register:device')).toBe(true);
    expect(grantsScope(['auth:login'], 'auth:register')).toBe(false);
    expect(grantsScope([], 'auth:login')).toBe(false);
  });

  it('splits single-space lists and collapses repeats', () => {
    expect(splitScopeString('auth:login read:devices auth:login')).toEqual(['auth:login', 'read:devices']);
  });
});

describe('internal context', () => {
  const secret = 's'.repeat(40);
  const ctx = { requestId: 'r1', keyId: 'k1', scopes: ['read:devices'] };

  it('round-trips when method, URL and secret match', () => {
    const signed = signContext(secret, 'catalog', 'GET', '/api/Dac?page=2', ctx, 1000);
    expect(verifyContext(secret, 'catalog', 'GET', '/api/Dac?page=2', signed.context, signed.signature, 1001)).toMatchObject(ctx);
  });

  it('rejects tampering, replay elsewhere, a foreign secret and expiry', () => {
    const signed = signContext(secret, 'catalog', 'GET', '/api/Dac', ctx, 1000);
    const forged = Buffer.from(JSON.stringify({ ...ctx, scopes: ['system:full-access'], expiresAt: 9e9 })).toString('base64url');
    expect(verifyContext(secret, 'catalog', 'GET', '/api/Dac', forged, signed.signature, 1001)).toBeNull();
    expect(verifyContext(secret, 'catalog', 'POST', '/api/Dac', signed.context, signed.signature, 1001)).toBeNull();
    expect(verifyContext(secret, 'catalog', 'GET', '/api/Dac?page=9', signed.context, signed.signature, 1001)).toBeNull();
    expect(verifyContext('o'.repeat(40), 'catalog', 'GET', '/api/Dac', signed.context, signed.signature, 1001)).toBeNull();
    expect(verifyContext(secret, 'catalog', 'GET', '/api/Dac', undefined, signed.signature)).toBeNull();
  });

  it('is bound to the target service: a context signed for one service does not verify at another, even on the same path', () => {
    const signed = signContext(secret, 'catalog', 'GET', '/api/Dac', ctx, 1000);
    for (const other of ['keys', 'identity', 'device', 'billing', '', 'catalog ']) {
      expect(verifyContext(secret, other, 'GET', '/api/Dac', signed.context, signed.signature, 1001)).toBeNull();
    }
    expect(verifyContext(secret, 'catalog', 'GET', '/api/Dac', signed.context, signed.signature, 1001)).toMatchObject(ctx);
  });

  it("verifies under a service's own key only: another service's key, held by that service, cannot sign for it", () => {
    const catalogKey = 'c'.repeat(43);
    const deviceKey = 'd'.repeat(43);
    // A broken-into device service signs a system context for the catalog with the one key it holds.
    const forged = signContext(deviceKey, 'catalog', 'POST', '/api/Dac/import', { ...ctx, scopes: ['system:full-access'] }, 1000);
    expect(verifyContext(catalogKey, 'catalog', 'POST', '/api/Dac/import', forged.context, forged.signature, 1001)).toBeNull();
    const real = signContext(catalogKey, 'catalog', 'POST', '/api/Dac/import', ctx, 1000);
    expect(verifyContext(catalogKey, 'catalog', 'POST', '/api/Dac/import', real.context, real.signature, 1001)).toMatchObject(ctx);
  });

  it('accepts the new and the replaced key during a rotation, and neither once it is over', () => {
    const [replaced, current, stranger] = ['r'.repeat(43), 'n'.repeat(43), 'x'.repeat(43)];
    const byOld = signContext(replaced, 'keys', 'GET', '/x', ctx, 1000);
    const byNew = signContext(current, 'keys', 'GET', '/x', ctx, 1000);
    const byStranger = signContext(stranger, 'keys', 'GET', '/x', ctx, 1000);
    const during = [current, replaced] as const;
    expect(verifyContext(during, 'keys', 'GET', '/x', byOld.context, byOld.signature, 1001)).toMatchObject(ctx);
    expect(verifyContext(during, 'keys', 'GET', '/x', byNew.context, byNew.signature, 1001)).toMatchObject(ctx);
    expect(verifyContext(during, 'keys', 'GET', '/x', byStranger.context, byStranger.signature, 1001)).toBeNull();
    expect(verifyContext([current], 'keys', 'GET', '/x', byOld.context, byOld.signature, 1001)).toBeNull();
    expect(verifyContext([], 'keys', 'GET', '/x', byNew.context, byNew.signature, 1001)).toBeNull();
  });

  it(`is usable for ${CONTEXT_LIFETIME_SECONDS} s (a short replay window), not a second longer`, () => {
    expect(CONTEXT_LIFETIME_SECONDS).toBeLessThanOrEqual(15);
    const signed = signContext(secret, 'catalog', 'GET', '/api/Dac', ctx, 1000);
    expect(
      verifyContext(secret, 'catalog', 'GET', '/api/Dac', signed.context, signed.signature, 1000 + CONTEXT_LIFETIME_SECONDS),
    ).toMatchObject(ctx);
    expect(
      verifyContext(secret, 'catalog', 'GET', '/api/Dac', signed.context, signed.signature, 1000 + CONTEXT_LIFETIME_SECONDS + 1),
    ).toBeNull();
  });
});
