import { startFakeUpstream, type FakeUpstream } from '@acs/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Pool } from 'undici';
import { createLogger } from '@acs/logger';
import { KeyUsageRecorder } from '../src/auth/key-usage-recorder.js';
import { INTERNAL_SECRET } from './harness.js';

// The gateway's usage batch (issue 17): counts per key, UTC day and status class, kept in memory and
// sent with lastUsedAt; a failed send is kept for the next one.
let keys: FakeUpstream;
let pool: Pool;
let failing = false;
const KEY_A = '11111111-1111-4111-8111-111111111111';
const KEY_B = '22222222-2222-4222-8222-222222222222';
type Batch = {
  usage: { keyId: string; lastUsedAt: number }[];
  counts: { keyId: string; date: string; byStatus: Record<string, number> }[];
  operationCounts: { keyId: string; operationId: string; hour: string; byStatus: Record<string, number> }[];
};
const batches = (): Batch[] => keys.received.map((r) => JSON.parse(r.body) as Batch);

beforeAll(async () => {
  keys = await startFakeUpstream();
  keys.handle = (_req, res) => {
    res.writeHead(failing ? 503 : 200, { 'content-type': 'application/json' });
    res.end(failing ? '{"error":"Service unavailable","message":"down"}' : '{"updated":1}');
  };
  pool = new Pool(keys.url);
});
afterAll(async () => {
  await pool.close();
  await keys.close();
});
afterEach(() => {
  keys.received.length = 0;
  failing = false;
  jest.restoreAllMocks();
});

const recorder = (maxPending = 100_000) =>
  new KeyUsageRecorder(
    { name: 'keys', origin: keys.url, pool } as never,
    INTERNAL_SECRET,
    createLogger({ name: 'test', level: 'silent' }),
    60_000,
    maxPending,
  );

describe('KeyUsageRecorder', () => {
  it('sends counts by key, UTC day and status class (429 apart from 4xx), split at midnight UTC', async () => {
    const now = jest.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-03-01T23:59:59.000Z'));
    const r = recorder();
    for (const status of [200, 201, 204, 301, 404, 403, 429, 429, 500, 503, 499]) r.count(KEY_A, status);
    r.count(KEY_B, 200);
    now.mockReturnValue(Date.parse('2026-03-02T00:00:00.500Z'));
    r.count(KEY_A, 200);
    r.record(KEY_A);
    await r.flush();
    const [batch] = batches();
    expect(batch!.usage).toEqual([{ keyId: KEY_A, lastUsedAt: Math.floor(Date.parse('2026-03-02T00:00:00.500Z') / 1000) }]);
    expect(batch!.counts).toEqual(
      expect.arrayContaining([
        { keyId: KEY_A, date: '2026-03-01', byStatus: { '2xx': 3, '3xx': 1, '4xx': 3, '429': 2, '5xx': 2 } },
        { keyId: KEY_B, date: '2026-03-01', byStatus: { '2xx': 1, '3xx': 0, '4xx': 0, '429': 0, '5xx': 0 } },
        { keyId: KEY_A, date: '2026-03-02', byStatus: { '2xx': 1, '3xx': 0, '4xx': 0, '429': 0, '5xx': 0 } },
      ]),
    );
    expect(batch!.counts).toHaveLength(3);
    await r.flush(); // nothing new: no call
    expect(keys.received).toHaveLength(1);
  });

  it('sends counts by key, operation, UTC hour and status class; the daily counts are their sums', async () => {
    const now = jest.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-03-01T10:59:59.000Z'));
    const r = recorder();
    r.count(KEY_A, 200, 'listCatalog');
    r.count(KEY_A, 429, 'listCatalog');
    r.count(KEY_A, 201, 'registerDevice');
    now.mockReturnValue(Date.parse('2026-03-01T11:00:00.000Z'));
    r.count(KEY_A, 200, 'listCatalog');
    r.count(KEY_B, 500);
    await r.flush();
    const [batch] = batches();
    const zero = { '2xx': 0, '3xx': 0, '4xx': 0, '429': 0, '5xx': 0 };
    expect(batch!.operationCounts).toEqual(
      expect.arrayContaining([
        { keyId: KEY_A, operationId: 'listCatalog', hour: '2026-03-01T10:00:00.000Z', byStatus: { ...zero, '2xx': 1, '429': 1 } },
        { keyId: KEY_A, operationId: 'registerDevice', hour: '2026-03-01T10:00:00.000Z', byStatus: { ...zero, '2xx': 1 } },
        { keyId: KEY_A, operationId: 'listCatalog', hour: '2026-03-01T11:00:00.000Z', byStatus: { ...zero, '2xx': 1 } },
        { keyId: KEY_B, operationId: 'unknown', hour: '2026-03-01T11:00:00.000Z', byStatus: { ...zero, '5xx': 1 } },
      ]),
    );
    expect(batch!.operationCounts).toHaveLength(4);
    expect(batch!.counts).toEqual(
      expect.arrayContaining([
        { keyId: KEY_A, date: '2026-03-01', byStatus: { ...zero, '2xx': 3, '429': 1 } },
        { keyId: KEY_B, date: '2026-03-01', byStatus: { ...zero, '5xx': 1 } },
      ]),
    );
    expect(batch!.counts).toHaveLength(2);
  });

  it('keeps a batch the keys service refused and adds it to the next one, counting nothing twice', async () => {
    const r = recorder();
    r.count(KEY_A, 200);
    r.count(KEY_A, 200);
    failing = true;
    await r.flush();
    failing = false;
    r.count(KEY_A, 500);
    await r.flush();
    const sent = batches();
    expect(sent).toHaveLength(2);
    expect(sent[1]!.counts).toEqual([
      { keyId: KEY_A, date: new Date().toISOString().slice(0, 10), byStatus: { '2xx': 2, '3xx': 0, '4xx': 0, '429': 0, '5xx': 1 } },
    ]);
    await r.flush();
    expect(batches()).toHaveLength(2);
  });

  it('bounds the keys it counts between flushes (counts of keys already known go on)', async () => {
    const r = recorder(1);
    r.count(KEY_A, 200);
    r.count(KEY_B, 200);
    r.count(KEY_A, 200);
    await r.flush();
    expect(batches()[0]!.counts).toEqual([
      { keyId: KEY_A, date: new Date().toISOString().slice(0, 10), byStatus: { '2xx': 2, '3xx': 0, '4xx': 0, '429': 0, '5xx': 0 } },
    ]);
  });
});
