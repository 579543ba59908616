import { createServer } from 'node:net';
import pg from 'pg';
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { createTestDatabase, listenOnLoopback, testServerUrl, unusedPort, type TestDatabase } from '@acs/testing';
import { catalogConfigSchema, startCatalogService } from '../src/index.js';
import { INTERNAL_SECRET, silentLogger } from './harness.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('catalog_start');
});

afterAll(async () => {
  await database?.drop();
});

async function connections(): Promise<number> {
  const client = new pg.Client({ connectionString: testServerUrl('DATABASE_URL') });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [
      new URL(database.url).pathname.slice(1),
    ]);
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

async function expectNoConnections(): Promise<void> {
  const deadline = Date.now() + 3_000;
  let open = await connections();
  while (open > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    open = await connections();
  }
  expect(open).toBe(0);
}

describe('a catalog start that fails', () => {
  it('on a taken port rejects with EADDRINUSE and leaves no database connection open', async () => {
    const blocker = createServer();
    const port = await listenOnLoopback(blocker);
    try {
      const config = catalogConfigSchema.parse({ PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: database.url, INTERNAL_SECRET });
      const err = await startCatalogService(config, silentLogger()).catch((e: unknown) => e);
      expect((err as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
      await expectNoConnections();
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('on an unreachable PostgreSQL rejects (once DATABASE_WAIT_SECONDS ran out) with a message that names the server but not the password', async () => {
    const port = await unusedPort();
    const config = catalogConfigSchema.parse({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: `postgres://app:s3cr3tpw@127.0.0.1:${port}/catalog`,
      DATABASE_WAIT_SECONDS: '1',
      INTERNAL_SECRET,
    });
    const err = await startCatalogService(config, silentLogger()).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/Cannot connect to PostgreSQL at .*127\.0\.0\.1/);
    expect((err as Error).message).not.toContain('s3cr3tpw');
  });

  it('refuses a configuration without a long enough INTERNAL_SECRET', () => {
    const result = catalogConfigSchema.safeParse({ INTERNAL_SECRET: 'short' });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]).toMatchObject({ path: ['INTERNAL_SECRET'] });
  });
});
