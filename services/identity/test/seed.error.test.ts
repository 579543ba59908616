import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { createRedisCache, type Cache } from '@acs/cache';
import { createTestDatabase, deleteRedisKeys, listenOnLoopback, uniqueName, type TestDatabase } from '@acs/testing';
import { startIdentityService } from '../src/index.js';
import { REDIS_URL, connectionsTo, identityConfig, silentLogger, strongPassword } from './harness.js';

let database: TestDatabase;
let cache: Cache;
const prefix = `${uniqueName('identity_seed_err')}:`;

beforeAll(async () => {
  database = await createTestDatabase('identity_seed_err');
  cache = createRedisCache({ url: REDIS_URL, keyPrefix: prefix, logger: silentLogger() });
});

afterAll(async () => {
  await cache?.close();
  await deleteRedisKeys(prefix);
  await database?.drop();
});

async function startWith(env: Record<string, string>): Promise<Error | null> {
  try {
    const service = await startIdentityService(await identityConfig(database, prefix, env), silentLogger(), cache);
    await service.close();
    return null;
  } catch (err) {
    return err as Error;
  }
}

describe('a bad seed Admin stops the start with a clear message, before the database is opened', () => {
  it.each<[string, string, RegExp]>([
    ['a short password', 'k7#Qm2!vX', /it must have at least 12 characters/],
    ['a common password', 'password1234', /it is a commonly used password/],
    ['the local part in the password', 'operator-on-duty-2026', /it must not contain the part of the e-mail address before the @/],
  ])('%s', async (_what, password, rule) => {
    const err = await startWith({ SEED_ADMIN_EMAIL: 'operator@example.test', SEED_ADMIN_PASSWORD: password });
    expect(err!.message).toMatch(/^SEED_ADMIN_PASSWORD does not meet the password policy: /);
    expect(err!.message).toMatch(rule);
    expect(err!.message).toContain('The policy: at least 12 characters');
    expect(err!.message).not.toContain(password);
    expect(await connectionsTo(database)).toBe(0);
  });

  it('refuses one seed variable without the other', async () => {
    expect((await startWith({ SEED_ADMIN_EMAIL: 'ops@example.test' }))!.message).toBe(
      'SEED_ADMIN_PASSWORD is required when SEED_ADMIN_EMAIL is set',
    );
    expect((await startWith({ SEED_ADMIN_PASSWORD: strongPassword() }))!.message).toBe(
      'SEED_ADMIN_EMAIL is required when SEED_ADMIN_PASSWORD is set',
    );
    expect(await connectionsTo(database)).toBe(0);
  });

  it('a taken port fails the start and closes the database pool', async () => {
    const { createServer } = await import('node:net');
    const blocker = createServer();
    const port = await listenOnLoopback(blocker);
    try {
      const err = await startWith({ PORT: String(port) });
      expect((err as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
      const deadline = Date.now() + 3_000;
      while ((await connectionsTo(database)) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await connectionsTo(database)).toBe(0);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});
