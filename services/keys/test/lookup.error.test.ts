import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { createRedisCache, type Cache } from '@acs/cache';
import { apiKeyCacheKey } from '@acs/contracts';
import type { Db } from '@acs/db';
import { signedFetch } from '@acs/testing';
import { createApiKey } from '../src/index.js';
import {
  INTERNAL_SECRET,
  buildKeyInput,
  captureLogger,
  closedRedisUrl,
  silentLogger,
  startKeys,
  unknownKey,
  type KeysHarness,
} from './harness.js';

let keys: KeysHarness;

beforeAll(async () => {
  keys = await startKeys();
});

afterAll(async () => {
  await keys?.stop();
});

/** Counts what reaches the real database while `fn` runs (the service reads deps.db per call). */
async function countQueries(fn: () => Promise<void>): Promise<number> {
  const real = keys.deps.db;
  let count = 0;
  const counting: Db = {
    kind: real.kind,
    query: (sql, params) => {
      count += 1;
      return real.query(sql, params);
    },
    transaction: (fn2) => {
      count += 1;
      return real.transaction(fn2);
    },
    ping: () => real.ping(),
    close: () => real.close(),
  };
  keys.deps.db = counting;
  try {
    await fn();
  } finally {
    keys.deps.db = real;
  }
  return count;
}

describe('POST /internal/keys/lookup with a malformed key', () => {
  const MALFORMED = [
    'not-a-key',
    'acs_prod_ABCDEFGHIJKLMNOPQRSTUVWX',
    'acs_live_short',
    'acs_live_ABCDEFGHIJKLMNOP_QRSTUVWX',
    'ACS_live_ABCDEFGHIJKLMNOPQRSTUVWX',
    "acs_live_ABCDEFGHIJKLMNOP' OR '1'='1",
    ' acs_live_ABCDEFGHIJKLMNOPQRSTUVWX',
  ];

  it.each(MALFORMED)('answers %j with null, without a database query or a cache write', async (key) => {
    let body: unknown;
    const queries = await countQueries(async () => {
      const response = await keys.lookup({ key });
      expect(response.status).toBe(200);
      body = await response.json();
    });
    expect(body).toEqual({ record: null });
    expect(queries).toBe(0);
    expect(await keys.redis.keys(`${keys.prefix}*`)).not.toContain(`${keys.prefix}apikey:{${key}}`);
  });

  it('the counter does see the query a well-formed key costs (the check above can fail)', async () => {
    const queries = await countQueries(async () => {
      expect((await keys.lookup({ key: unknownKey() })).status).toBe(200);
    });
    expect(queries).toBe(1);
  });
});

describe('POST /internal/keys/lookup with an invalid body', () => {
  const INVALID: Array<[string, unknown]> = [
    ['no key field', {}],
    ['an empty key', { key: '' }],
    ['a number', { key: 42 }],
    ['null', { key: null }],
    ['a key over 200 characters', { key: `acs_live_${'A'.repeat(200)}` }],
    ['an array body', [{ key: 'acs_live_ABCDEFGHIJKLMNOPQRSTUVWX' }]],
  ];

  it.each(INVALID)('answers %s with 400 and details', async (_what, body) => {
    const response = await keys.lookup(body);
    expect(response.status).toBe(400);
    const error = (await response.json()) as { error: string; message: string; details?: Array<{ path: string; message: string }> };
    expect(error).toMatchObject({ error: 'Bad request', message: 'The request body is invalid' });
    expect(error.details!.length).toBeGreaterThan(0);
    expect(error.details![0]!.path).toMatch(/^body/);
  });

  it('answers a body that is not JSON with 400', async () => {
    const response = await keys.lookup('{"key": ');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'Bad request', message: 'The request body is not valid JSON' });
  });

  it('answers a missing body with 400 and a non-JSON content type with 415', async () => {
    const empty = await signedFetch(keys.url, INTERNAL_SECRET, 'POST', '/internal/keys/lookup');
    expect(empty.status).toBe(400);
    const text = await signedFetch(keys.url, INTERNAL_SECRET, 'POST', '/internal/keys/lookup', {
      body: 'key=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
  });

  it('answers a body over 64 KiB with 413', async () => {
    const response = await keys.lookup({ key: 'x', padding: 'p'.repeat(70_000) });
    expect(response.status).toBe(413);
  });

  it('answers GET on the lookup path with 405', async () => {
    const response = await signedFetch(keys.url, INTERNAL_SECRET, 'GET', '/internal/keys/lookup');
    expect(response.status).toBe(405);
  });
});

describe('POST /internal/keys/lookup while Redis is unreachable', () => {
  let down: KeysHarness;
  let deadCache: Cache;
  let logs: ReturnType<typeof captureLogger>;

  beforeAll(async () => {
    deadCache = createRedisCache({ url: await closedRedisUrl(), keyPrefix: 'unused:', logger: silentLogger() });
    logs = captureLogger();
    down = await startKeys({ cache: deadCache, logger: logs.logger });
  });

  afterAll(async () => {
    await down?.stop();
    await deadCache?.close();
  });

  it('still answers from the database (the gateway asks exactly then) and logs that the refill failed', async () => {
    // The key is created while Redis works: same database, a working cache.
    const working = { ...down.deps, cache: keys.cache };
    const { apiKey } = await createApiKey(working, buildKeyInput({ scopes: ['read:devices'] }));
    const response = await down.lookup({ key: apiKey.key });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ record: { id: apiKey.id, scopes: ['read:devices'], revoked: false } });
    expect(logs.lines).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'could not refill the key cache', keyId: apiKey.id }));
    await keys.cache.del(apiKeyCacheKey(apiKey.key));
  });

  it('still answers an unknown key with null', async () => {
    const response = await down.lookup({ key: unknownKey() });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ record: null });
  });

  it('/readyz answers 503 naming the cache', async () => {
    const response = await fetch(`${down.url}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ ready: false, checks: { database: 'ok', migrations: 'ok', cache: 'not reachable' } });
  });
});
