import { describe, expect, it } from '@jest/globals';
import { openDatabase } from '@acs/db';
import { createTestDatabase, startFaultProxy, testServerUrl, unusedPort } from '@acs/testing';
import { isUnreachable } from '../src/postgres/ensure-database.js';
import { captureLogger } from './helpers.js';

const WAITING = 'PostgreSQL is not reachable yet; waiting for it (DATABASE_WAIT_SECONDS)';

describe('isUnreachable: what a start waits for', () => {
  it('waits for refused, reset, timed out and unresolved connections and a server starting up; not for a refusal of who connects', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', '57P03'])
      expect(isUnreachable(Object.assign(new Error('x'), { code }))).toBe(true);
    expect(isUnreachable(new Error('Connection terminated due to connection timeout'))).toBe(true);
    // 28P01 wrong password, 28000 no such role, 3D000 no such database: waiting would not change them.
    for (const code of ['28P01', '28000', '3D000']) expect(isUnreachable(Object.assign(new Error('x'), { code }))).toBe(false);
    expect(isUnreachable(null)).toBe(false);
  });
});

describe('a start while PostgreSQL is away (waitMs, DATABASE_WAIT_SECONDS)', () => {
  it('waits for a server that comes back, saying so without the password, then opens', async () => {
    const database = await createTestDatabase('db_wait');
    const proxy = await startFaultProxy(database.url, 5432);
    const url = new URL(proxy.url);
    url.password = 'hunter2'; // trust auth ignores it; the log must not show it
    proxy.cut();
    const { logger, lines } = captureLogger();
    const opening = openDatabase({ url: url.toString(), logger, waitMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    proxy.restore();
    const db = await opening;
    try {
      expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
      const waited = lines.filter((line) => line.msg === WAITING);
      expect(waited.length).toBeGreaterThanOrEqual(2);
      expect(JSON.stringify(waited)).not.toContain('hunter2');
      expect(waited[0]).toMatchObject({ database: expect.stringContaining('***@127.0.0.1'), secondsLeft: expect.any(Number) });
    } finally {
      await db.close();
      await proxy.close();
      await database.drop();
    }
  }, 30_000);

  it('gives up once the wait has run out, with the clear message', async () => {
    const started = Date.now();
    const { logger, lines } = captureLogger();
    await expect(
      openDatabase({ url: `postgres://someone:hunter2@127.0.0.1:${await unusedPort()}/nowhere`, logger, waitMs: 1200 }),
    ).rejects.toThrow(/Cannot connect to PostgreSQL at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:\d+\/nowhere/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1200);
    expect(lines.some((line) => line.msg === WAITING)).toBe(true);
  });

  it('does not wait for a refusal of who connects (a role that does not exist)', async () => {
    const url = new URL(testServerUrl('DATABASE_URL'));
    url.username = 'no_such_role_for_the_wait_test';
    const started = Date.now();
    const { logger, lines } = captureLogger();
    await expect(openDatabase({ url: url.toString(), logger, waitMs: 20_000 })).rejects.toThrow(/Cannot connect to PostgreSQL/);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(lines.some((line) => line.msg === WAITING)).toBe(false);
  });
});
