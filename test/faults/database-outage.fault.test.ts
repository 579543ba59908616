import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createApiKey } from '@acs/keys-service';
import { startFaultProxy, testServerUrl, type FaultProxy } from '@acs/testing';
import { startSystemUnderTest, type SystemUnderTest } from '../e2e/system-harness.js';
import { PASSWORD, json, type Auth } from '../e2e/actors.js';

// Fault injection: PostgreSQL goes away under a running system and comes back. Callers get the
// error shape with 503 (never a 500, never a hang), nothing is half-written, and every service
// reconnects by itself.

const OUTAGE_ANSWER_MS = 5_000;
let postgres: FaultProxy;
let sut: SystemUnderTest;
let app: Auth;

async function eventually(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  postgres = await startFaultProxy(testServerUrl('DATABASE_URL'), 5432);
  sut = await startSystemUnderTest({}, { databaseVia: postgres.url });
  const created = await createApiKey(sut.system.keys.deps, {
    name: 'fault app',
    scopes: ['read:devices', 'auth:register'],
    ownerUserId: null,
    environment: 'test',
  });
  app = { key: created.apiKey.key, secret: created.secret };
}, 60_000);

afterAll(async () => {
  await postgres?.close();
  await sut?.stop();
});

describe('PostgreSQL outage under a running system', () => {
  it('answers 503 in the error shape while the databases are unreachable, writes nothing, and recovers by itself', async () => {
    expect((await sut.call('GET', '/api/Dac', app)).status).toBe(200);
    const email = `fault-${randomBytes(5).toString('hex')}@example.com`;
    const register = () =>
      sut.call('POST', '/api/Users/Register', app, json({ email, password: PASSWORD, firstName: 'Grace', lastName: 'Hopper' }));

    postgres.cut();
    let restored = false;
    try {
      for (const request of [() => sut.call('GET', '/api/Dac', app), register]) {
        const started = performance.now();
        const response = await request();
        expect(performance.now() - started).toBeLessThan(OUTAGE_ANSWER_MS);
        expect(response.status).toBe(503);
        const body = (await response.json()) as Record<string, unknown>;
        expect(body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
        expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|at .*\.js|stack/);
      }
      const readiness = await sut.call('GET', '/readyz', null);
      expect(readiness.status).toBe(503);

      postgres.restore();
      restored = true;
      await eventually(async () => (await sut.call('GET', '/api/Dac', app)).status === 200);
      await eventually(async () => (await sut.call('GET', '/readyz', null)).status === 200);
      // The registration refused during the outage left nothing behind: the same e-mail registers now.
      expect((await register()).status).toBe(201);
    } finally {
      if (!restored) postgres.restore();
    }
  }, 60_000);
});
