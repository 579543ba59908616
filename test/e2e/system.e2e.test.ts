import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { catalogPageSchema, type CatalogPage } from '@acs/contracts';
import { SPEC_ERRORS } from '@acs/errors';
import { changeApiKey, createApiKey, revokeApiKey } from '@acs/keys-service';
import { launcherConfigSchema, startSystem } from '@acs/launcher';
import { createLogger } from '@acs/logger';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';

let sut: SystemUnderTest;
beforeAll(async () => {
  sut = await startSystemUnderTest({ METRICS_PORT: '0' }); // the gateway's readiness details are on the metrics listener
}, 60_000);
afterAll(async () => sut?.stop());

async function page(path: string, auth = sut.seed): Promise<CatalogPage> {
  const res = await sut.call('GET', path, auth);
  expect(res.status).toBe(200);
  return catalogPageSchema.parse(await res.json()); // the schema the OpenAPI document is generated from
}

describe('the system through the gateway (PostgreSQL, Redis)', () => {
  it('serves the seeded catalog to the seed key', async () => {
    const first = await page('/api/Dac');
    expect(first.page).toBe(1);
    expect(first.pageSize).toBe(20);
    expect(first.total).toBeGreaterThanOrEqual(60);
    const all = await page('/api/Dac?pageSize=100');
    expect(new Set(all.items.map((i) => i.type))).toEqual(new Set(['dac', 'amplifier', 'speaker']));
    expect(new Set(all.items.map((i) => i.brand)).size).toBeGreaterThanOrEqual(10);
  });

  it('pages through everything exactly once, in a stable order', async () => {
    const { total, totalPages } = await page('/api/Dac?pageSize=25');
    const ids: number[] = [];
    for (let p = 1; p <= totalPages; p++) ids.push(...(await page(`/api/Dac?pageSize=25&page=${p}`)).items.map((i) => i.id));
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect((await page(`/api/Dac?pageSize=25&page=${totalPages + 1}`)).items).toEqual([]);
  });

  it('filters by brand, ignoring case', async () => {
    const lower = await page('/api/Dac?brand=schiit&pageSize=100');
    const upper = await page('/api/Dac?brand=SCHIIT&pageSize=100');
    expect(lower.total).toBeGreaterThan(0);
    expect(upper.items.map((i) => i.id)).toEqual(lower.items.map((i) => i.id));
    expect(lower.items.every((i) => i.brand.toLowerCase() === 'schiit')).toBe(true);
    expect((await page('/api/Dac?brand=Schi')).total).toBe(0);
  });

  it('answers bad queries with 400 and details', async () => {
    for (const query of ['page=0', 'page=abc', 'pageSize=101', 'pageSize=0', 'brand=', 'sort=price']) {
      const res = await sut.call('GET', `/api/Dac?${query}`, sut.seed);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'Bad request', message: expect.any(String), details: expect.any(Array) });
    }
  });

  it('applies the spec 401/403 bodies', async () => {
    const missing = await sut.call('GET', '/api/Dac', null);
    expect(await missing.json()).toMatchObject({ error: SPEC_ERRORS.missingApiKey.error, message: SPEC_ERRORS.missingApiKey.message });
    const { apiKey, secret } = await createApiKey(sut.system.keys.deps, {
      name: 'e2e',
      scopes: ['auth:register'],
      ownerUserId: null,
      environment: 'test',
    });
    const refused = await sut.call('GET', '/api/Dac', { key: apiKey.key, secret });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      error: SPEC_ERRORS.insufficientScope.error,
      message: SPEC_ERRORS.insufficientScope.message,
    });
  });

  it('applies a scope change and a revocation on the very next request', async () => {
    const { apiKey, secret } = await createApiKey(sut.system.keys.deps, {
      name: 'e2e',
      scopes: ['read:devices'],
      ownerUserId: null,
      environment: 'live',
    });
    const auth = { key: apiKey.key, secret };
    expect((await sut.call('GET', '/api/Dac', auth)).status).toBe(200);
    await changeApiKey(sut.system.keys.deps, apiKey.id, { scopes: ['auth:login'] });
    expect((await sut.call('GET', '/api/Dac', auth)).status).toBe(403);
    await changeApiKey(sut.system.keys.deps, apiKey.id, { scopes: ['write:devices'] });
    expect((await sut.call('GET', '/api/Dac', auth)).status).toBe(200);
    await revokeApiKey(sut.system.keys.deps, apiKey.id);
    expect((await sut.call('GET', '/api/Dac', auth)).status).toBe(401);
  });

  it('reports ready with every upstream migrated', async () => {
    const res = await sut.call('GET', '/readyz', null);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ready: true }); // public: no details
    const details = await fetch(`${sut.system.gateway.metricsServer!.url}/readyz`);
    expect(await details.json()).toEqual({
      ready: true,
      checks: { cache: 'ok', identity: 'ok', keys: 'ok', catalog: 'ok', device: 'ok', billing: 'ok', webhooks: 'ok' },
    });
  });

  it('answers 503 in the error shape once the catalog service is down, and keeps serving the rest', async () => {
    await sut.system.catalog.close();
    const res = await sut.call('GET', '/api/Dac', sut.seed);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toMatchObject({
      error: 'Service unavailable',
      message: 'The catalog service is not reachable',
      hint: expect.stringContaining('Retry-After'),
    });
    expect((await sut.call('GET', '/healthz', null)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // the gateway reuses a readiness answer for a second
    expect((await sut.call('GET', '/readyz', null)).status).toBe(503);
  });
});

describe('start-up configuration', () => {
  it('refuses a SEED_API_KEY outside the key format', async () => {
    const config = launcherConfigSchema.parse({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/acs_never_created',
      PORT: '0',
      INTERNAL_SECRET: 'x'.repeat(32),
      SEED_API_KEY: 'my-key',
      SEED_API_SECRET: 's'.repeat(40),
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: 'acs_e2e_never:',
    });
    await expect(startSystem(config, createLogger({ name: 'e2e', level: 'silent' }))).rejects.toThrow(
      /SEED_API_KEY is not in the key format/,
    );
  });

  it('requires SEED_API_SECRET with SEED_API_KEY', () => {
    expect(launcherConfigSchema.safeParse({ SEED_API_KEY: 'acs_live_AAAAAAAAAAAAAAAAAAAAAAAA' }).success).toBe(false);
  });
});
