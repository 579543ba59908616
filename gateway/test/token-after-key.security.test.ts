import { startFakeUpstream, type FakeUpstream } from '@acs/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { verifyContext } from '@acs/auth';
import { JWKS_PATH, authzCacheKey } from '@acs/contracts';
import { INTERNAL_SECRET, startGatewayHarness, type GatewayHarness } from './harness.js';

/*
 * Issue 14.11: a caller without a valid key must not make the gateway verify a JWT. Identity is a
 * fake that serves the key set and counts every call: verifying a token it has not seen makes the
 * gateway fetch the key set, so "no call" means "no verification".
 */
let h: GatewayHarness;
let identity: FakeUpstream;
let device: FakeUpstream;
let signingKey: CryptoKey;
let jwk: JWK;
let caller: { id: string; key: string; secret: string };

const USER_ID = 4242;

function token(sub: string, kid = 'k1'): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ email: 'u@example.com', role: 1, plan_type: 0 })
    .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
    .setSubject(sub)
    .setIssuedAt(now - 5)
    .setIssuer('acs-identity')
    .setAudience('acs-api')
    .setExpirationTime(now + 600)
    .sign(signingKey);
}

const identityCalls = (): string[] => identity.received.map((r) => r.url);

beforeAll(async () => {
  const pair = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  signingKey = pair.privateKey;
  jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' };
  identity = await startFakeUpstream();
  identity.handle = (req, res) => {
    res.writeHead(req.url === JWKS_PATH ? 200 : 404, { 'content-type': 'application/json' });
    res.end(req.url === JWKS_PATH ? JSON.stringify({ keys: [jwk] }) : '{"error":"not_found","message":"no"}');
  };
  device = await startFakeUpstream();
  h = await startGatewayHarness({ IDENTITY_URL: identity.url, DEVICE_URL: device.url });
  caller = await h.createKey(['auth:login']);
  const record = { userId: USER_ID, accountRole: 0, trialEndsAt: null, subscriptionEndsAt: null, planType: 0, disabled: false };
  await h.cache.setIfNewer(authzCacheKey(USER_ID), 1, JSON.stringify(record), 600);
});
afterAll(async () => {
  await h.close();
  await identity.close();
  await device.close();
});
beforeEach(() => {
  identity.received.length = 0;
  device.received.length = 0;
});

describe('user routes: the token is verified only after the key passes', () => {
  it('no key, an unknown key or a wrong secret: 401 and no verification, for valid and made-up tokens alike', async () => {
    const tokens = [
      await token(String(USER_ID)),
      await token(String(USER_ID), 'never-seen-kid'),
      'eyJhbGciOiJFZERTQSIsImtpZCI6InoifQ.eyJzdWIiOiI3In0.c2ln',
    ];
    const wrongSecret = { key: caller.key, secret: `${caller.secret}x` };
    for (const t of tokens) {
      for (const auth of [null, wrongSecret]) {
        const res = await h.call('GET', '/api/Devices', auth, { headers: { authorization: `Bearer ${t}` } });
        expect(res.status).toBe(401);
      }
    }
    expect(identityCalls()).toEqual([]);
    expect(device.received).toHaveLength(0);
  });

  it('with a valid key the same token is verified and the user forwarded', async () => {
    const t = await token(String(USER_ID));
    const res = await h.call('GET', '/api/Devices', caller, { headers: { authorization: `Bearer ${t}` } });
    expect(res.status).toBe(200);
    const forwarded = device.received[0]!;
    const context = verifyContext(
      INTERNAL_SECRET,
      'device',
      'GET',
      forwarded.url,
      forwarded.headers['x-acs-context'] as string,
      forwarded.headers['x-acs-signature'] as string,
    );
    expect(context?.userId).toBe(USER_ID);
  });

  it('a valid key with a token signed by an unknown key is refused (403), never forwarded', async () => {
    const res = await h.call('GET', '/api/Devices', caller, {
      headers: { authorization: `Bearer ${await token(String(USER_ID), 'never-seen-kid')}` },
    });
    expect(res.status).toBe(403);
    expect(device.received).toHaveLength(0);
  });
});
