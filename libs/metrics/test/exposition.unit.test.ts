import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { listenOnLoopback, metricValue } from '@acs/testing';
import { Gauge, Registry, metricsExposition, sendMetrics } from '@acs/metrics';

const healthy = new Registry();
new Gauge({ name: 'answer', help: 'test', registers: [healthy] }).set(42);
const broken = new Registry();
new Gauge({
  name: 'broken',
  help: 'test',
  registers: [broken],
  collect() {
    throw new Error('collector failed');
  },
});

const failures: unknown[] = [];
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => void sendMetrics(req.url === '/broken' ? broken : healthy, res, (err) => failures.push(err)));
  url = `http://127.0.0.1:${await listenOnLoopback(server)}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('exposition', () => {
  it('gives the text and the registry content type', async () => {
    const { contentType, body } = await metricsExposition(healthy);
    expect(contentType).toBe(healthy.contentType);
    expect(metricValue(body, 'answer')).toBe(42);
  });

  it('serves it on node:http', async () => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(metricValue(await res.text(), 'answer')).toBe(42);
  });

  it('answers 500 without details when a collector fails', async () => {
    const res = await fetch(`${url}/broken`);
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('collector failed');
    expect(failures).toEqual([expect.objectContaining({ message: 'collector failed' })]);
  });
});
