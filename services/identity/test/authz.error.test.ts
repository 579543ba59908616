import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { createRedisCache, type Cache } from '@acs/cache';
import { authzCacheKey } from '@acs/contracts';
import { openIdentityDeps, registerUser, setTrialEnd, setUserRole, type IdentityDeps } from '../src/index.js';
import {
  buildRegisterBody,
  closedRedisUrl,
  countUsers,
  findRow,
  identityConfig,
  registered,
  silentLogger,
  startIdentity,
  type IdentityHarness,
} from './harness.js';

let identity: IdentityHarness;
let deadCache: Cache;
/** The same database as `identity`, with a cache on a port where nothing listens. */
let down: IdentityDeps;

beforeAll(async () => {
  identity = await startIdentity();
  deadCache = createRedisCache({ url: await closedRedisUrl(), keyPrefix: identity.prefix, logger: silentLogger() });
  down = await openIdentityDeps(await identityConfig(identity.database, identity.prefix), silentLogger(), deadCache);
});

afterAll(async () => {
  await down?.db.close();
  await deadCache?.close();
  await identity?.stop();
});

describe('when Redis is unreachable', () => {
  it('a registration fails and inserts no row', async () => {
    const before = await countUsers(identity.db);
    const body = buildRegisterBody();
    await expect(registerUser(down, body)).rejects.toThrow();
    expect(await countUsers(identity.db)).toBe(before);
    expect(await findRow(identity.db, body.email)).toBeNull();
  });

  it('a role change fails and leaves the database and the cache as they were', async () => {
    const { body: account, user } = await registered(identity);
    const started = Date.now();
    await expect(setUserRole(down, account.email, 2)).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await findRow(identity.db, account.email)).toMatchObject({ account_role: 0, version: 1 });
    expect(await identity.cachedAuthz(user.id)).toMatchObject({ version: 1, record: { accountRole: 0 } });
  });

  it('a trial change fails and leaves both as they were', async () => {
    const { body: account, user } = await registered(identity);
    await expect(setTrialEnd(down, user.id, new Date(0))).rejects.toThrow();
    expect((await findRow(identity.db, account.email))!.trial_ends_at!.toISOString()).toBe(user.trialExpiresAt);
    expect(await identity.cachedAuthz(user.id)).toMatchObject({ version: 1 });
  });

  it('the lookup still answers from the database (the refill is best effort)', async () => {
    const { user } = await registered(identity);
    const { lookupAuthzForGateway } = await import('../src/domain/lookup-authz.js');
    expect(await lookupAuthzForGateway(down, user.id)).toMatchObject({ userId: user.id, accountRole: 0 });
  });
});

describe('when the cache write lands but its answer is lost (a timeout)', () => {
  it('the change is rolled back and the entry that landed is dropped, so the gateway refills the truth', async () => {
    const { body: account, user } = await registered(identity);
    const lossy: Cache = {
      ...identity.cache,
      setIfNewer: async (key, version, value, ttl) => {
        await identity.cache.setIfNewer(key, version, value, ttl);
        throw new Error('Command timed out');
      },
    };
    await expect(setUserRole({ ...identity.deps, cache: lossy }, account.email, 3)).rejects.toThrow('Command timed out');
    expect(await findRow(identity.db, account.email)).toMatchObject({ account_role: 0, version: 1 });
    expect(await identity.cachedAuthz(user.id)).toBeNull();
    // The next change reuses version 2 and must be visible (nothing left claims version 2).
    await setUserRole(identity.deps, account.email, 2);
    expect(await identity.cachedAuthz(user.id)).toMatchObject({ version: 2, record: { accountRole: 2 } });
  });

  it('an entry claiming a version the database does not have is replaced, not kept', async () => {
    const { body: account, user } = await registered(identity);
    await identity.redis.set(
      `${identity.prefix}${authzCacheKey(user.id)}`,
      `2|${JSON.stringify({ userId: user.id, accountRole: 3, trialEndsAt: null, subscriptionEndsAt: null, planType: 0, disabled: false })}`,
    );
    await setUserRole(identity.deps, account.email, 0);
    expect(await identity.cachedAuthz(user.id)).toMatchObject({ version: 2, record: { accountRole: 0 } });
  });

  it('a commit that fails after the cache write drops the entry too', async () => {
    const { body: account, user } = await registered(identity);
    const real = identity.deps.db;
    const failingDb = {
      kind: real.kind,
      query: real.query.bind(real),
      ping: real.ping.bind(real),
      close: real.close.bind(real),
      transaction: <T>(fn: Parameters<IdentityDeps['db']['transaction']>[0]) =>
        real.transaction(async (tx) => {
          await fn(tx);
          throw new Error('commit failed');
        }) as Promise<T>,
    };
    await expect(setUserRole({ ...identity.deps, db: failingDb }, account.email, 3)).rejects.toThrow('commit failed');
    expect(await findRow(identity.db, account.email)).toMatchObject({ account_role: 0, version: 1 });
    expect(await identity.cachedAuthz(user.id)).toBeNull();
  });
});
