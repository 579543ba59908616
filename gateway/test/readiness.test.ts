import { startFakeUpstream, type FakeUpstream } from '@acs/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCachedReadiness, READINESS_CACHE_MS } from '../src/readiness.js';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

let h: GatewayHarness;
let catalog: FakeUpstream;

beforeAll(async () => {
  catalog = await startFakeUpstream();
  h = await startGatewayHarness({ CATALOG_URL: catalog.url });
});
afterAll(async () => {
  await h.close();
  await catalog.close();
});

const upstreamProbes = (): number => catalog.received.filter((r) => r.url === '/readyz').length;

describe('public /readyz', () => {
  it('50 anonymous calls at once make one round of upstream checks, and the answer says only ready or not', async () => {
    await new Promise((resolve) => setTimeout(resolve, READINESS_CACHE_MS + 50)); // past any round made at start
    const before = upstreamProbes();
    const answers = await Promise.all(Array.from({ length: 50 }, () => h.call('GET', '/readyz', null)));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ ready: true });
    }
    expect(upstreamProbes() - before).toBe(1);
  });

  it('a failing upstream turns it 503 (after at most a second), still without details', async () => {
    catalog.handle = (_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"ready":false,"checks":{"database":"connect ECONNREFUSED 10.1.2.3:5432"}}');
    };
    try {
      await new Promise((resolve) => setTimeout(resolve, READINESS_CACHE_MS + 50));
      const res = await h.call('GET', '/readyz', null);
      expect(res.status).toBe(503);
      expect(await res.text()).toBe('{"ready":false}');
      const details = (await (await fetch(`${h.gateway.metricsServer!.url}/readyz`)).json()) as { checks: Record<string, string> };
      expect(details.checks.catalog).toContain('database: connect ECONNREFUSED 10.1.2.3:5432');
    } finally {
      catalog.handle = (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ready":true,"checks":{}}');
      };
    }
  });
});

describe('createCachedReadiness', () => {
  it('runs the checks again only once the last answer is a second old', async () => {
    let clock = 0;
    let runs = 0;
    const readiness = createCachedReadiness(
      {
        one: async () => {
          runs += 1;
          return 'ok';
        },
      },
      () => clock,
    );
    await readiness();
    clock = READINESS_CACHE_MS - 1;
    expect(await readiness()).toEqual({ ready: true, checks: { one: 'ok' } });
    expect(runs).toBe(1);
    clock = READINESS_CACHE_MS;
    await readiness();
    expect(runs).toBe(2);
  });
});
