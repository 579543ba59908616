import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { listenOnLoopback } from '@acs/testing';
import { processCpuSeconds } from '../../bench/src/process-cpu.js';
import type { ServiceProcess } from '../../bench/src/processes.js';
import { runSlices, sliceSetupOf, summarizeSlices, type Slice } from '../../bench/src/slices.js';

// --slices judges a feature's few µs by alternating two contenders every tenth of a second: the pairing must
// take both orders, leave stalls out, and the runner must really alternate and count what each answered.
const slice = (contender: 0 | 1, cpuUs: number, requests: number, errors = 0, redisUs = 0): Slice => ({
  contender,
  cpuSeconds: (cpuUs * requests) / 1e6,
  requests,
  errors,
  milliseconds: 100,
  redisSeconds: (redisUs * requests) / 1e6,
});

describe('summarizeSlices', () => {
  it('pairs adjacent slices in both orders and reports A over B', () => {
    const s = summarizeSlices([slice(0, 103, 100, 0, 5.5), slice(1, 100, 100, 0, 5), slice(0, 103, 100, 0, 5.5), slice(1, 100, 100, 0, 5)]);
    expect(s.pairs).toBe(3);
    expect(s.difference).toBeCloseTo(3, 6);
    expect(s.ratio).toBeCloseTo(1.03, 6);
    expect(s.cpuUs[0]).toBeCloseTo(103, 6);
    expect(s.cpuUs[1]).toBeCloseTo(100, 6);
    expect(s.rps).toEqual([1000, 1000]);
    expect(s.redisUs[0]).toBeCloseTo(5.5, 6);
    expect(s.redisDifference).toBeCloseTo(0.5, 6);
  });

  it('takes both orders of every adjacent pair, so what the second slice of a pair always adds cancels', () => {
    // Every slice costs 2 µs more than the one before it (a drift): A-then-B pairs alone would all say -2.
    const drifting = Array.from({ length: 9 }, (_, i) => slice((i % 2) as 0 | 1, 100 + 2 * i, 100));
    const s = summarizeSlices(drifting);
    expect(s.pairs).toBe(8);
    expect(s.quartiles).toEqual([-2, 2]);
  });

  it('leaves out stalled slices and adds up the errors', () => {
    const s = summarizeSlices([slice(0, 100, 100, 1), slice(1, 500, 3), slice(0, 100, 100), slice(1, 90, 100, 2)]);
    expect(s.pairs).toBe(1);
    expect(s.difference).toBeCloseTo(10, 6);
    expect(s.errors).toBe(3);
  });

  it('says NaN, not a figure, when no pair is left', () => {
    const s = summarizeSlices([slice(0, 100, 100)]);
    expect(s.pairs).toBe(0);
    expect(s.difference).toBeNaN();
  });
});

describe('runSlices', () => {
  const servers: Server[] = [];
  const seen = [0, 0];
  let urls: string[] = [];

  beforeAll(async () => {
    for (const [i, status] of [200, 503].entries()) {
      const server = createServer((_req, res) => {
        seen[i]!++;
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end('x');
      });
      servers.push(server);
    }
    urls = await Promise.all(servers.map(async (server) => `http://127.0.0.1:${await listenOnLoopback(server)}`));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('alternates the contenders, reads CPU at every switch and counts each one its own answers', async () => {
    const here = (url: string): ServiceProcess =>
      ({ url, cpuSeconds: () => processCpuSeconds(process.pid), child: null, stop: async () => {} }) as unknown as ServiceProcess;
    const slices = await runSlices(
      [
        { name: 'ok', process: here(urls[0]!), path: '/', headers: () => ({}) },
        { name: 'refusing', process: here(urls[1]!), path: '/', headers: () => ({}) },
      ],
      { seconds: 1.05, sliceMs: 100, connections: 4, redisCpuSeconds: () => processCpuSeconds(process.pid) },
    );
    expect(slices.length).toBeGreaterThanOrEqual(8);
    expect(slices.map((s) => s.contender)).toEqual(slices.map((_, i) => i % 2));
    for (const s of slices) {
      expect(s.requests).toBeGreaterThan(0);
      expect(s.cpuSeconds).toBeGreaterThan(0);
      // The third process read at each switch (here this one again): its own slice of time, never negative.
      expect(s.redisSeconds).toBeGreaterThan(0);
      // Only the refusing contender's answers are errors.
      expect(s.errors).toBe(s.contender === 1 ? s.requests : 0);
    }
    const counted = [0, 1].map((c) => slices.filter((s) => s.contender === c).reduce((n, s) => n + s.requests, 0));
    // Each server answered at least what its slices counted; the rest were stragglers across a switch (at most
    // one per connection per switch) and the last unfinished slice.
    for (const c of [0, 1]) {
      expect(seen[c]).toBeGreaterThanOrEqual(counted[c]!);
      expect(counted[c]).toBeGreaterThan(0);
    }
  });
});

describe('sliceSetupOf', () => {
  const setups = ['this', 'first baseline', 'second baseline'];

  it("serves a plain name from this checkout's setup", () => {
    expect(sliceSetupOf('layer 1 limited', setups)).toEqual({ scenario: 'layer 1 limited', setup: 'this' });
  });

  it('serves NAME@baseline from the first --baseline checkout and NAME@baselineN from the Nth', () => {
    expect(sliceSetupOf('layer 1 limited@baseline', setups)).toEqual({ scenario: 'layer 1 limited', setup: 'first baseline' });
    expect(sliceSetupOf('layer 1 + 2@baseline2', setups)).toEqual({ scenario: 'layer 1 + 2', setup: 'second baseline' });
  });

  it('refuses a baseline that was not given, and a suffix that names none', () => {
    expect(() => sliceSetupOf('layer 1@baseline3', setups)).toThrow(/names no --baseline checkout \(2 given/);
    expect(() => sliceSetupOf('layer 1@baseline', ['this'])).toThrow(/0 given/);
    expect(() => sliceSetupOf('layer 1@base', setups)).toThrow(/names no --baseline/);
    expect(() => sliceSetupOf('layer 1@baseline0', setups)).toThrow(/names no --baseline/);
  });
});
