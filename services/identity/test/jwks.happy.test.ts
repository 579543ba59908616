import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect, afterEach } from '@jest/globals';
import { SignJWT, createLocalJWKSet, importJWK, jwtVerify, type JSONWebKeySet } from 'jose';
import { JWT_AUDIENCE_DEFAULT, JWT_ISSUER_DEFAULT } from '@acs/contracts';
import { newSigningKey, registered, startIdentity, type IdentityHarness } from './harness.js';

let identity: IdentityHarness | undefined;
let dataDir: string | undefined;

afterEach(async () => {
  await identity?.stop();
  identity = undefined;
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

async function servedKeys(harness: IdentityHarness): Promise<{ keys: Record<string, unknown>[] }> {
  const response = await harness.jwks();
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.headers.get('cache-control')).toBe('public, max-age=300');
  return (await response.json()) as { keys: Record<string, unknown>[] };
}

describe(`GET /.well-known/jwks.json`, () => {
  it('serves the public half of JWT_SIGNING_KEY with kid, alg EdDSA and use sig, and never the private part', async () => {
    const key = await newSigningKey('main-2026');
    identity = await startIdentity({ env: { JWT_SIGNING_KEY: key.env } });
    const { keys } = await servedKeys(identity);
    expect(keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: key.publicJwk.x, kid: 'main-2026', alg: 'EdDSA', use: 'sig' }]);
    expect(JSON.stringify(keys)).not.toContain(String(key.privateJwk.d));
  });

  it('serves the verification keys after the current one, so tokens of the previous key still verify', async () => {
    const current = await newSigningKey('current');
    const previous = await newSigningKey('previous');
    identity = await startIdentity({
      env: { JWT_SIGNING_KEY: current.env, JWT_VERIFICATION_KEYS: JSON.stringify([previous.publicJwk, current.publicJwk]) },
    });
    const jwks = await servedKeys(identity);
    expect(jwks.keys.map((k) => k.kid)).toEqual(['current', 'previous']);
    const set = createLocalJWKSet(jwks as JSONWebKeySet);
    const oldToken = await new SignJWT({ role: 0 })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'previous', typ: 'JWT' })
      .setSubject('1')
      .setIssuer(JWT_ISSUER_DEFAULT)
      .setAudience(JWT_AUDIENCE_DEFAULT)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(await importJWK(previous.privateJwk, 'EdDSA'));
    await expect(jwtVerify(oldToken, set, { algorithms: ['EdDSA'] })).resolves.toBeDefined();
    const { body } = await registered(identity);
    const login = (await (await identity.login({ email: body.email, password: body.password })).json()) as { token: string };
    const { protectedHeader } = await jwtVerify(login.token, set, { algorithms: ['EdDSA'] });
    expect(protectedHeader.kid).toBe('current');
  });

  it('uses JWT_ISSUER and JWT_AUDIENCE and JWT_TTL_SECONDS', async () => {
    identity = await startIdentity({ env: { JWT_ISSUER: 'https://id.example.test', JWT_AUDIENCE: 'audio-api', JWT_TTL_SECONDS: '120' } });
    const set = createLocalJWKSet((await servedKeys(identity)) as JSONWebKeySet);
    const { body } = await registered(identity);
    const login = (await (await identity.login({ email: body.email, password: body.password })).json()) as {
      token: string;
      expiresAt: string;
    };
    const { payload } = await jwtVerify(login.token, set, {
      algorithms: ['EdDSA'],
      issuer: 'https://id.example.test',
      audience: 'audio-api',
    });
    expect(payload.exp! - payload.iat!).toBe(120);
    await expect(jwtVerify(login.token, set, { algorithms: ['EdDSA'], issuer: JWT_ISSUER_DEFAULT })).rejects.toThrow();
  });
});

describe('without JWT_SIGNING_KEY (the embedded mode)', () => {
  it('generates a key once under DATA_DIR/identity (mode 0600) and keeps it across restarts', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'identity-keys-'));
    identity = await startIdentity({ env: { JWT_SIGNING_KEY: '', DATA_DIR: dataDir } });
    const file = join(dataDir, 'identity', 'jwt-signing-key.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
    expect(stored).toMatchObject({
      kty: 'OKP',
      crv: 'Ed25519',
      x: expect.any(String),
      d: expect.any(String),
      kid: expect.stringMatching(/^\d{4}-\d{2}-\d{2}\.[A-Za-z0-9_-]{8}$/),
    });
    const first = await servedKeys(identity);
    expect(first.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: stored.x, kid: stored.kid, alg: 'EdDSA', use: 'sig' }]);

    const { body } = await registered(identity);
    const { token } = (await (await identity.login({ email: body.email, password: body.password })).json()) as { token: string };
    await identity.restart({ JWT_SIGNING_KEY: '', DATA_DIR: dataDir });
    const second = await servedKeys(identity);
    expect(second).toEqual(first);
    await expect(jwtVerify(token, createLocalJWKSet(second as JSONWebKeySet), { algorithms: ['EdDSA'] })).resolves.toBeDefined();
  });
});
