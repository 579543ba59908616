import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { metricSamples, metricValue } from '@acs/testing';
import { closedUrl, startDevice, type DeviceHarness } from './harness.js';

let h: DeviceHarness;
beforeAll(async () => {
  h = await startDevice(await closedUrl()); // listing an empty account never asks the catalog
});
afterAll(async () => h?.stop());

describe('GET /metrics at the device service', () => {
  it('answers without a signature; a path no route matches is counted as "unmatched", not by its URL', async () => {
    expect((await h.list(777)).status).toBe(200);
    expect((await h.call('GET', '/api/Devices/SN-0042-secret', { userId: 777 })).status).toBe(404);
    const res = await fetch(`${h.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(
      metricValue(text, 'http_server_requests_total', { service: 'device', method: 'GET', route: '/api/Devices', status: '200' }),
    ).toBe(1);
    expect(metricValue(text, 'http_server_requests_total', { service: 'device', method: 'GET', route: 'unmatched', status: '404' })).toBe(
      1,
    );
    expect(text).not.toContain('SN-0042');
    const routes = new Set(metricSamples(text, 'http_server_requests_total').map((sample) => sample.labels.route));
    expect([...routes].sort()).toEqual(['/api/Devices', 'unmatched']);
  });
});
