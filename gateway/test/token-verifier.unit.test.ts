import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { Pool } from 'undici';
import { createLogger } from '@acs/logger';
import { listenOnLoopback } from '@acs/testing';
import { JwksStore } from '../src/auth/jwks-store.js';
import { TokenVerifier } from '../src/auth/token-verifier.js';

const ISSUER = 'acs-identity';
const AUDIENCE = 'acs-api';

let server: Server;
let pool: Pool;
let served: { keys: JWK[] };
let jwksRequests = 0;
let signingKey: CryptoKey;
let otherKey: CryptoKey;
let now = 1_900_000_000;

async function keyPair(kid: string): Promise<{ privateKey: CryptoKey; jwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' } };
}

function token(
  claims: Record<string, unknown> = {},
  options: { kid?: string; key?: CryptoKey; exp?: number; iss?: string; aud?: string } = {},
): Promise<string> {
  return new SignJWT({ email: 'a@example.com', role: 1, plan_type: 0, ...claims })
    .setProtectedHeader({ alg: 'EdDSA', kid: options.kid ?? 'k1', typ: 'JWT' })
    .setSubject('42')
    .setIssuedAt(now - 10)
    .setIssuer(options.iss ?? ISSUER)
    .setAudience(options.aud ?? AUDIENCE)
    .setExpirationTime(options.exp ?? now + 3600)
    .sign(options.key ?? signingKey);
}

function verifier(maxEntries = 100): { verifier: TokenVerifier; store: JwksStore } {
  const store = new JwksStore(
    { name: 'identity', origin: '', pool, internalSecret: 'x'.repeat(40) },
    'x'.repeat(40),
    createLogger({ name: 't', level: 'silent' }),
    () => now * 1000,
  );
  return { store, verifier: new TokenVerifier(store, { issuer: ISSUER, audience: AUDIENCE, maxEntries, nowSeconds: () => now }) };
}

beforeAll(async () => {
  const k1 = await keyPair('k1');
  signingKey = k1.privateKey;
  otherKey = (await keyPair('k1')).privateKey; // same kid, different key: a forgery
  served = { keys: [k1.jwk] };
  server = createServer((_req, res) => {
    jwksRequests++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(served));
  });
  pool = new Pool(`http://127.0.0.1:${await listenOnLoopback(server)}`);
});
afterAll(async () => {
  await pool.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  now = 1_900_000_000;
});

describe('token verifier', () => {
  it('answers a token verified before without waiting, and never one that failed', async () => {
    const { verifier: v } = verifier();
    const good = await token();
    const forged = await token({}, { key: otherKey });
    expect(v.remembered(good)).toBeUndefined(); // never verified: the caller must verify()
    expect(await v.verify(good)).toEqual({ userId: 42, exp: now + 3600 });
    expect(v.remembered(good)).toEqual({ userId: 42, exp: now + 3600 });
    expect(await v.verify(forged)).toBeNull();
    expect(v.remembered(forged)).toBeUndefined(); // a failure is not remembered: it is verified (and fails) again
    now += 3601;
    expect(v.remembered(good)).toBeNull(); // expired since: refused and forgotten
    expect(v.remembered(good)).toBeUndefined();
  });

  it('accepts a valid token and remembers it', async () => {
    const { verifier: v } = verifier();
    const t = await token();
    expect(await v.verify(t)).toEqual({ userId: 42, exp: now + 3600 });
    expect(v.size).toBe(1);
    expect(await v.verify(t)).toEqual({ userId: 42, exp: now + 3600 });
  });

  it('refuses tampered, alg:none, foreign-key, wrong-issuer, wrong-audience and malformed tokens', async () => {
    const { verifier: v } = verifier();
    const good = await token();
    await v.verify(good); // cached: must not make any of the following pass
    const [header, payload, signature] = good.split('.');
    const forgedPayload = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: '1', role: 3 }),
    ).toString('base64url');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid: 'k1' })).toString('base64url')}.${payload}.`;
    const bad = [
      `${header}.${forgedPayload}.${signature}`,
      none,
      await token({}, { key: otherKey }),
      await token({}, { iss: 'someone-else' }),
      await token({}, { aud: 'other-api' }),
      await token({ role: 'admin' }),
      'not.a.jwt',
      `${good}x`,
    ];
    for (const t of bad) expect(await v.verify(t)).toBeNull();
    expect(v.size).toBe(1); // failures are never remembered
  });

  it('refuses an expired token, also one it had verified before', async () => {
    const { verifier: v } = verifier();
    expect(await v.verify(await token({}, { exp: now - 1 }))).toBeNull();
    const t = await token({}, { exp: now + 60 });
    expect(await v.verify(t)).not.toBeNull();
    now += 61;
    expect(await v.verify(t)).toBeNull();
    expect(v.size).toBe(0);
  });

  it('stays bounded', async () => {
    const { verifier: v } = verifier(3);
    for (let i = 0; i < 5; i++) expect(await v.verify(await token({ email: `u${i}@example.com` }))).not.toBeNull();
    expect(v.size).toBe(3);
  });

  it('refetches the keys for an unknown kid, at most every 10 s, and forgets tokens of removed keys', async () => {
    const { verifier: v } = verifier();
    const t = await token();
    await v.verify(t);
    const k2 = await keyPair('k2');
    const before = jwksRequests;
    const rotated = await token({}, { kid: 'k2', key: k2.privateKey });
    expect(await v.verify(rotated)).toBeNull(); // k2 not published yet; the refetch is rate-limited
    now += 11;
    served = { keys: [k2.jwk] }; // rotation: k1 retired
    expect(await v.verify(rotated)).toEqual({ userId: 42, exp: expect.any(Number) });
    expect(jwksRequests).toBe(before + 1);
    expect(await v.verify(t)).toBeNull(); // k1 is gone, and so is its cached token
    served = { keys: [(await keyPair('k1')).jwk, k2.jwk] };
  });

  it('throws (503 upstream) when no keys can be fetched at all', async () => {
    const dead = new Pool('http://127.0.0.1:1');
    const store = new JwksStore(
      { name: 'identity', origin: '', pool: dead, internalSecret: 'x'.repeat(40) },
      'x'.repeat(40),
      createLogger({ name: 't', level: 'silent' }),
    );
    const v = new TokenVerifier(store, { issuer: ISSUER, audience: AUDIENCE, maxEntries: 10, nowSeconds: () => now });
    await expect(v.verify(await token())).rejects.toMatchObject({ status: 503 });
    await dead.close();
  });
});
