import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { signedFetch } from '@acs/testing';
import { INTERNAL_SECRET, startCatalog, type CatalogHarness, type ErrorBody } from './harness.js';

let catalog: CatalogHarness;

beforeAll(async () => {
  catalog = await startCatalog();
});

afterAll(async () => {
  await catalog?.stop();
});

const BAD_QUERIES: Array<{ query: string; path: string; message: RegExp }> = [
  { query: 'page=0', path: 'query.page', message: /page must be at least 1/ },
  { query: 'page=-1', path: 'query.page', message: /^page must be a whole number from 1 to 1000000$/ },
  { query: 'page=abc', path: 'query.page', message: /page must be a whole number/ },
  { query: 'page=1.5', path: 'query.page', message: /page must be a whole number/ },
  { query: 'page=', path: 'query.page', message: /page must be a whole number/ },
  { query: 'page=%201', path: 'query.page', message: /page must be a whole number/ },
  { query: 'page=1000001', path: 'query.page', message: /page must be at most 1000000/ },
  { query: 'page=99999999999999999999', path: 'query.page', message: /page must be a whole number/ },
  { query: 'pageSize=0', path: 'query.pageSize', message: /pageSize must be at least 1/ },
  { query: 'pageSize=101', path: 'query.pageSize', message: /pageSize must be at most 100/ },
  { query: 'pageSize=1e2', path: 'query.pageSize', message: /pageSize must be a whole number/ },
  { query: 'pageSize=0x10', path: 'query.pageSize', message: /pageSize must be a whole number/ },
  { query: 'brand=', path: 'query.brand', message: /brand must not be empty/ },
  { query: 'brand=%20%20', path: 'query.brand', message: /brand must not be empty/ },
  { query: `brand=${'x'.repeat(81)}`, path: 'query.brand', message: /80/ },
  { query: 'pagesize=10', path: 'query.pagesize', message: /^unknown parameter; did you mean "pageSize"\?$/ },
  { query: 'sort=price', path: 'query.sort', message: /^unknown parameter$/ },
  { query: 'page=1&page=2', path: 'query.page', message: /string/i },
  { query: 'brand=topping&brand=TOPPING', path: 'query.brand', message: /string/i },
  { query: 'cursor=', path: 'query.cursor', message: /nextCursor value/ },
  { query: 'cursor=abc%2Bdef', path: 'query.cursor', message: /nextCursor value/ },
  { query: 'cursor=bm90IGpzb24', path: 'query.cursor', message: /nextCursor value/ },
  { query: 'cursor=WzIsNSxudWxsXQ', path: 'query.cursor', message: /nextCursor value/ },
  { query: 'cursor=WzEsLTUsbnVsbF0', path: 'query.cursor', message: /nextCursor value/ },
  { query: 'cursor=WzEsNSwiIl0', path: 'query.cursor', message: /nextCursor value/ },
  { query: `cursor=${'A'.repeat(1025)}`, path: 'query.cursor', message: /nextCursor value/ },
  { query: 'cursor=WzEsNSxudWxsXQ&page=2', path: 'query.cursor', message: /cursor replaces page/ },
  { query: 'cursor=a&cursor=b', path: 'query.cursor', message: /string/i },
  { query: 'cursor=WzEsNSxudWxsLCJ0YXBlIixudWxsXQ', path: 'query.cursor', message: /nextCursor value/ },
  { query: 'cursor=WzEsNS41LG51bGwsbnVsbCxudWxsXQ', path: 'query.cursor', message: /nextCursor value/ },
  { query: 'type=tape', path: 'query.type', message: /type must be one of dac, amplifier, speaker/ },
  { query: 'type=DAC', path: 'query.type', message: /type must be one of/ },
  { query: 'type=', path: 'query.type', message: /type must be one of/ },
  { query: 'type=dac&type=speaker', path: 'query.type', message: /type must be one of/ },
  { query: 'q=', path: 'query.q', message: /q must not be empty/ },
  { query: 'q=%20', path: 'query.q', message: /q must not be empty/ },
  { query: `q=${'x'.repeat(81)}`, path: 'query.q', message: /q must be at most 80/ },
  { query: 'q=a&q=b', path: 'query.q', message: /string/i },
];

describe('GET /api/Dac with a bad query', () => {
  it.each(BAD_QUERIES)('answers ?$query with 400 and a detail at $path', async ({ query, path, message }) => {
    const response = await catalog.get(`/api/Dac?${query}`);
    expect(response.status).toBe(400);
    const body = (await response.json()) as ErrorBody;
    expect(body.error).toBe('Bad request');
    expect(body.message).toBe('The request query is invalid');
    expect(body.requestId).toBe(response.headers.get('x-request-id'));
    expect(body.details).toEqual(expect.arrayContaining([{ path, message: expect.stringMatching(message) }]));
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts|stack|SELECT/i);
  });

  it('reports every problem of one query, not only the first', async () => {
    const response = await catalog.get('/api/Dac?page=0&pageSize=101&color=red');
    expect(response.status).toBe(400);
    const body = (await response.json()) as ErrorBody;
    expect(body.details!.map((detail) => detail.path).sort()).toEqual(['query.color', 'query.page', 'query.pageSize']);
  });
});

describe('other routes and methods', () => {
  it('answers an unknown path with 404 in the error shape', async () => {
    const response = await catalog.get('/api/Amplifiers');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 'Not found', message: expect.any(String) });
  });

  it('answers POST /api/Dac with 405 and an Allow header', async () => {
    const response = await signedFetch(catalog.url, INTERNAL_SECRET, 'POST', '/api/Dac', { body: {} });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toMatch(/GET/);
    expect(await response.json()).toMatchObject({ error: 'Method not allowed' });
  });
});

describe('/readyz', () => {
  it('answers 503 naming the pending migration when its schema_migrations row is missing, and 200 once it is back', async () => {
    const {
      rows: [applied],
    } = await catalog.db.query<{ name: string; checksum: string }>(
      "SELECT name, checksum FROM schema_migrations WHERE name = '001_create_catalog.sql'",
    );
    expect(applied).toBeDefined();
    await catalog.db.query('DELETE FROM schema_migrations WHERE name = $1', [applied!.name]);
    try {
      const response = await fetch(`${catalog.url}/readyz`);
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ ready: false, checks: { database: 'ok', migrations: 'pending: 001_create_catalog.sql' } });
    } finally {
      await catalog.db.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [applied!.name, applied!.checksum]);
    }
    const recovered = await fetch(`${catalog.url}/readyz`);
    expect(recovered.status).toBe(200);
  });

  it('names every pending migration, in order', async () => {
    const { rows: applied } = await catalog.db.query<{ name: string; checksum: string }>(
      'SELECT name, checksum FROM schema_migrations ORDER BY name',
    );
    expect(applied.map((row) => row.name)).toEqual([
      '001_create_catalog.sql',
      '002_catalog_counts_integrity.sql',
      '003_catalog_version.sql',
      '004_catalog_filters.sql',
      '005_catalog_version_notify.sql',
    ]);
    await catalog.db.query('DELETE FROM schema_migrations');
    try {
      const response = await fetch(`${catalog.url}/readyz`);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({
        ready: false,
        checks: {
          migrations:
            'pending: 001_create_catalog.sql, 002_catalog_counts_integrity.sql, 003_catalog_version.sql, 004_catalog_filters.sql, 005_catalog_version_notify.sql',
        },
      });
    } finally {
      for (const row of applied)
        await catalog.db.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [row.name, row.checksum]);
    }
    expect((await fetch(`${catalog.url}/readyz`)).status).toBe(200);
  });
});
