import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  apiKeyCreatedResponseSchema,
  apiKeyOperationUsageResponseSchema,
  authzCacheKey,
  quotaCounterKey,
  quotaPeriodStart,
  usageResponseSchema,
} from '@acs/contracts';
import { signedFetch } from '@acs/testing';
import { purgeOperationUsage } from '../src/data-access/usage-repository.js';
import { toApiKeyEnvelope } from '../src/events/keys-outbox.js';
import { INTERNAL_SECRET, startKeys, type KeysHarness } from './harness.js';

// Issue 29 at the keys service: usage per operation and hour, the user's usage against the quota, CSV, threshold crossings.
let h: KeysHarness;
beforeAll(async () => {
  h = await startKeys({ env: { USAGE_RETENTION_DAYS: '30' } });
});
afterAll(async () => h.stop());

const as = (userId: number) => ({ context: { requestId: 'req-u', keyId: 'dashboard', scopes: ['system:full-access'], userId, role: 1 } });
const call = (path: string, userId: number, headers: Record<string, string> = {}) =>
  signedFetch(h.url, INTERNAL_SECRET, 'GET', path, { ...as(userId), headers });
const sendBatch = (body: Record<string, unknown>) =>
  signedFetch(h.url, INTERNAL_SECRET, 'POST', '/internal/keys/usage', {
    body: { usage: [], ...body },
    context: { keyId: null, scopes: [] },
  });
const HOUR_MS = 3_600_000;
const zero = { '2xx': 0, '3xx': 0, '4xx': 0, '429': 0, '5xx': 0 };

async function create(userId: number, name = 'k') {
  const res = await signedFetch(h.url, INTERNAL_SECRET, 'POST', '/api/ApiKeys', { ...as(userId), body: { name, scopes: 'read:devices' } });
  expect(res.status).toBe(201);
  return apiKeyCreatedResponseSchema.parse(await res.json());
}
const hourAgo = (n: number) => new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS - n * HOUR_MS).toISOString();
const op = (keyId: string, operationId: string, hour: string, byStatus: Partial<typeof zero>) => ({
  keyId,
  operationId,
  hour,
  byStatus: { ...zero, ...byStatus },
});

describe('GET /api/ApiKeys/{id}/usage?by=operation', () => {
  it('adds the batches per key, operation and hour and answers them with totals per operation, for the owner only', async () => {
    const key = await create(61);
    expect(
      (
        await sendBatch({
          operationCounts: [
            op(key.id, 'listCatalog', hourAgo(2), { '2xx': 5, '429': 1 }),
            op(key.id, 'listPlans', hourAgo(2), { '2xx': 1 }),
          ],
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await sendBatch({
          operationCounts: [op(key.id, 'listCatalog', hourAgo(2), { '2xx': 2 }), op(key.id, 'listCatalog', hourAgo(0), { '5xx': 1 })],
        })
      ).status,
    ).toBe(200);
    const res = await call(`/api/ApiKeys/${key.id}/usage?by=operation`, 61);
    expect(res.status).toBe(200);
    const usage = apiKeyOperationUsageResponseSchema.strict().parse(await res.json());
    expect(usage.operations).toEqual([
      { operationId: 'listCatalog', requests: 9, byStatus: { ...zero, '2xx': 7, '429': 1, '5xx': 1 } },
      { operationId: 'listPlans', requests: 1, byStatus: { ...zero, '2xx': 1 } },
    ]);
    expect(usage.hours).toEqual([
      { hour: hourAgo(2), operationId: 'listCatalog', requests: 8, byStatus: { ...zero, '2xx': 7, '429': 1 } },
      { hour: hourAgo(2), operationId: 'listPlans', requests: 1, byStatus: { ...zero, '2xx': 1 } },
      { hour: hourAgo(0), operationId: 'listCatalog', requests: 1, byStatus: { ...zero, '5xx': 1 } },
    ]);
    // from/to narrow it (to exclusive); the existing daily form still answers days.
    const narrow = apiKeyOperationUsageResponseSchema.parse(
      await (await call(`/api/ApiKeys/${key.id}/usage?by=operation&from=${hourAgo(1)}&to=${hourAgo(-1)}`, 61)).json(),
    );
    expect(narrow.operations).toEqual([{ operationId: 'listCatalog', requests: 1, byStatus: { ...zero, '5xx': 1 } }]);
    const daily = (await (await call(`/api/ApiKeys/${key.id}/usage?days=2`, 61)).json()) as { days: unknown[] };
    expect(daily.days).toHaveLength(2);
    expect((await call(`/api/ApiKeys/${key.id}/usage?by=operation`, 62)).status).toBe(404);
  });

  it('answers CSV for format=csv or Accept: text/csv', async () => {
    const key = await create(63);
    await sendBatch({ operationCounts: [op(key.id, 'listCatalog', hourAgo(1), { '2xx': 3, '4xx': 1 })] });
    for (const [query, headers] of [
      ['&format=csv', {}],
      ['', { accept: 'text/csv' }],
    ] as const) {
      const res = await call(`/api/ApiKeys/${key.id}/usage?by=operation${query}`, 63, headers);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(await res.text()).toBe(`hour,operationId,requests,2xx,3xx,4xx,429,5xx\r\n${hourAgo(1)},listCatalog,4,3,0,1,0,0\r\n`);
    }
    const daily = await call(`/api/ApiKeys/${key.id}/usage?days=1&format=csv`, 63);
    expect((await daily.text()).split('\r\n')[0]).toBe('date,requests,2xx,3xx,4xx,429,5xx');
  });

  it('refuses a bad range with 400 in the error shape', async () => {
    const key = await create(64);
    for (const query of [
      'from=yesterday',
      `from=${hourAgo(0)}&to=${hourAgo(1)}`,
      'from=2020-01-01&to=2020-03-01',
      'by=hour',
      'format=xml',
    ]) {
      const res = await call(`/api/ApiKeys/${key.id}/usage?by=operation&${query}`.replace('by=operation&by=hour', 'by=hour'), 64);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(await res.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    }
    // A date that is no date names both forms the client may send, not zod's bare "Invalid input".
    const res = await call(`/api/ApiKeys/${key.id}/usage?by=operation&from=2026-13-01`, 64);
    expect(((await res.json()) as { details: unknown[] }).details).toEqual([
      { path: 'query.from', message: expect.stringMatching(/UTC date \(2026-11-01\).*ISO 8601 date-time/) },
    ]);
  });

  it('purges rows older than the retention', async () => {
    const key = await create(65);
    await sendBatch({
      operationCounts: [op(key.id, 'listCatalog', hourAgo(31 * 24), { '2xx': 1 }), op(key.id, 'listCatalog', hourAgo(1), { '2xx': 1 })],
    });
    expect(await purgeOperationUsage(h.db, 30)).toBeGreaterThanOrEqual(1);
    const { rows } = await h.db.query<{ n: string }>('SELECT count(*) AS n FROM api_key_operation_usage WHERE key_id = $1', [key.id]);
    expect(Number(rows[0]!.n)).toBe(1);
  });
});

describe('GET /api/Usage', () => {
  it("answers this period's count from the gateway's counter against the quota, and per key from the roll-up", async () => {
    const userId = 71;
    const [a, b] = [await create(userId, 'app one'), await create(userId, '=SUM(A1)')];
    const now = Date.now();
    const month = quotaPeriodStart('month', now);
    const day = quotaPeriodStart('day', now);
    const record = {
      userId,
      accountRole: 0,
      trialEndsAt: null,
      subscriptionEndsAt: 4_000_000_000,
      planType: 1,
      disabled: false,
      quota: { plan: 'monthly', perMonth: 1000, perDay: 100 },
    };
    await h.redis.set(`${h.prefix}${authzCacheKey(userId)}`, `1|${JSON.stringify(record)}`);
    await h.redis.set(`${h.prefix}${quotaCounterKey(userId, 'month', month)}`, '420');
    await h.redis.set(`${h.prefix}${quotaCounterKey(userId, 'day', day)}`, '120');
    await sendBatch({
      operationCounts: [op(a.id, 'listCatalog', hourAgo(0), { '2xx': 30 }), op(b.id, 'listPlans', hourAgo(0), { '2xx': 12 })],
    });
    const res = await call('/api/Usage', userId);
    expect(res.status).toBe(200);
    const usage = usageResponseSchema.strict().parse(await res.json());
    expect(usage.plan).toBe('monthly');
    expect(usage.periods).toEqual([
      { period: 'month', periodStart: month, resetsAt: expect.stringMatching(/-01T00:00:00.000Z$/), used: 420, quota: 1000, left: 580 },
      { period: 'day', periodStart: day, resetsAt: expect.stringMatching(/T00:00:00.000Z$/), used: 120, quota: 100, left: 0 },
    ]);
    expect(usage.keys).toEqual([
      { id: a.id, name: 'app one', requests: 30 },
      { id: b.id, name: '=SUM(A1)', requests: 12 },
    ]);
    const csv = await (await call('/api/Usage', userId, { accept: 'text/csv' })).text();
    expect(csv).toBe(`id,name,requests\r\n${a.id},app one,30\r\n${b.id},'=SUM(A1),12\r\n`);
    // Another user sees only theirs; without a record or counters: no quota, zero used.
    const other = usageResponseSchema.parse(await (await call('/api/Usage', 72)).json());
    expect(other).toEqual({
      plan: null,
      periods: [expect.objectContaining({ period: 'month', used: 0, quota: null, left: null })],
      keys: [],
    });
  });
});

describe('quota threshold crossings in the usage batch', () => {
  it('records each crossing once per user, period, period start and percent, and puts each in the outbox once', async () => {
    const crossing = (percent: number) => ({ userId: 81, plan: 'monthly', period: 'month', periodStart: '2026-11', percent, quota: 1000 });
    expect((await sendBatch({ quotaThresholds: [crossing(80), crossing(80)] })).status).toBe(200);
    expect((await sendBatch({ quotaThresholds: [crossing(80), crossing(90)] })).status).toBe(200);
    const { rows } = await h.db.query<{ percent: number; published: boolean }>(
      'SELECT percent, published_at IS NOT NULL AS published FROM quota_threshold_crossings WHERE user_id = 81 ORDER BY percent',
    );
    expect(rows).toEqual([
      { percent: 80, published: true },
      { percent: 90, published: true },
    ]);
    expect((await sendBatch({ quotaThresholds: [{ ...crossing(80), percent: 85 }] })).status).toBe(400);
    // What the relay publishes: one quota.threshold.v1 event per crossing, whose envelope passes the contract.
    const outbox = await h.db.query<{
      id: string;
      event_id: string;
      type: string;
      routing_key: string;
      payload: Record<string, unknown>;
      occurred_at: Date;
    }>(
      "SELECT id, event_id, type, routing_key, payload, occurred_at FROM outbox WHERE type = 'quota.threshold.v1' AND payload->>'userId' = '81' ORDER BY id",
    );
    expect(outbox.rows.map((row) => [row.routing_key, row.payload.percent])).toEqual([
      ['quota.threshold', 80],
      ['quota.threshold', 90],
    ]);
    const row = outbox.rows[0]!;
    const envelope = toApiKeyEnvelope({
      id: Number(row.id),
      eventId: row.event_id,
      userId: 81,
      type: row.type,
      routingKey: row.routing_key,
      payload: row.payload,
      occurredAt: row.occurred_at,
      traceContext: null,
      attempts: 0,
    });
    expect(envelope).toMatchObject({
      id: row.event_id,
      type: 'quota.threshold.v1',
      payload: { eventId: row.event_id, plan: 'monthly', periodStart: '2026-11', quota: 1000 },
    });
  });
});
