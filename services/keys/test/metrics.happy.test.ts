import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { metricSamples, metricValue, signedFetch } from '@acs/testing';
import { INTERNAL_SECRET, startKeys, type KeysHarness } from './harness.js';

let h: KeysHarness;
beforeAll(async () => {
  h = await startKeys();
});
afterAll(async () => h.stop());

const asUser = { context: { keyId: 'dashboard', scopes: ['system:full-access'], userId: 4242, role: 1 } };

describe('GET /metrics at the keys service', () => {
  it('answers without a signature and counts requests by route pattern, never by the key id in the URL', async () => {
    const id = '3f1c2d9e-0000-4000-8000-00000000beef';
    expect((await signedFetch(h.url, INTERNAL_SECRET, 'DELETE', `/api/ApiKeys/${id}`, asUser)).status).toBe(404);
    expect((await signedFetch(h.url, INTERNAL_SECRET, 'GET', '/api/ApiKeys', asUser)).status).toBe(200);
    const res = await fetch(`${h.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(
      metricValue(text, 'http_server_requests_total', { service: 'keys', method: 'DELETE', route: '/api/ApiKeys/:id', status: '404' }),
    ).toBe(1);
    expect(metricValue(text, 'http_server_requests_total', { service: 'keys', method: 'GET', route: '/api/ApiKeys', status: '200' })).toBe(
      1,
    );
    expect(text).not.toContain(id);
    expect(metricSamples(text, 'process_resident_memory_bytes')[0]?.labels).toEqual({ service: 'keys' });
  });
});
