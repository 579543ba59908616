import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { metricValue } from '@acs/testing';
import { startCatalog, type CatalogHarness } from './harness.js';

let catalog: CatalogHarness;
beforeAll(async () => {
  catalog = await startCatalog({ seed: false });
});
afterAll(async () => catalog?.stop());

describe('GET /metrics at the catalog service', () => {
  it('answers without a signature and counts GET /api/Dac without its query string', async () => {
    expect((await catalog.get('/api/Dac?brand=Topping&pageSize=5')).status).toBe(200);
    expect((await catalog.get('/api/Dac?pageSize=1000')).status).toBe(400);
    const res = await fetch(`${catalog.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(metricValue(text, 'http_server_requests_total', { service: 'catalog', method: 'GET', route: '/api/Dac', status: '200' })).toBe(
      1,
    );
    expect(metricValue(text, 'http_server_requests_total', { service: 'catalog', method: 'GET', route: '/api/Dac', status: '400' })).toBe(
      1,
    );
    expect(metricValue(text, 'http_server_request_duration_seconds_count', { route: '/api/Dac' })).toBe(2);
    expect(text).not.toContain('Topping');
  });
});
