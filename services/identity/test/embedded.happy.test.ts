import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect, afterEach } from '@jest/globals';
import { createMemoryCache } from '@acs/cache';
import { registered, startIdentity, type IdentityHarness } from './harness.js';

let identity: IdentityHarness | undefined;
let dataDir: string | undefined;

afterEach(async () => {
  await identity?.stop();
  identity = undefined;
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('the embedded mode (PGlite under DATA_DIR, in-process cache, generated key)', () => {
  it('registers and logs in, and keeps users and the signing key across a restart', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'identity-embedded-'));
    const env = { DATABASE_URL: '', JWT_SIGNING_KEY: '', DATA_DIR: dataDir };
    identity = await startIdentity({ env, cache: createMemoryCache() });
    const { body, user } = await registered(identity);
    const kid = identity.deps.signer.kid;
    // The signing key beside the service's other files; the database in the one embedded PostgreSQL
    // every service of DATA_DIR shares (each in its own schema).
    expect(await readdir(join(dataDir, 'identity'))).toEqual(expect.arrayContaining(['jwt-signing-key.json']));
    expect(await readdir(join(dataDir, 'pglite'))).toEqual(expect.arrayContaining(['PG_VERSION']));
    await identity.restart(env);
    expect(identity.deps.signer.kid).toBe(kid);
    const response = await identity.login({ email: body.email, password: body.password });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ user: { id: user.id, role: 1, isTrialSubscription: true } });
  }, 60_000);
});
