import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  apiKeyCreatedResponseSchema,
  apiKeyListResponseSchema,
  apiKeyRolledResponseSchema,
  apiKeyUsageResponseSchema,
} from '@acs/contracts';
import { signedFetch } from '@acs/testing';
import { INTERNAL_SECRET, captureLogger, sha256, startKeys, type KeysHarness } from './harness.js';

// Issue 17 at the keys service: expiry, rolling a secret, daily usage (the caller comes from the gateway-signed context).
const capture = captureLogger();
let h: KeysHarness;
beforeAll(async () => {
  h = await startKeys({ logger: capture.logger, env: { KEY_MAX_LIFETIME_DAYS: '90' } });
});
afterAll(async () => h.stop());

const as = (userId: number, role = 1, requestId = 'req-1') => ({
  context: { requestId, keyId: 'dashboard', scopes: ['system:full-access'], userId, role },
});
const call = (method: string, path: string, who: ReturnType<typeof as>, body?: unknown) =>
  signedFetch(h.url, INTERNAL_SECRET, method, path, {
    ...who,
    ...(body === undefined ? {} : { body }),
    headers: { 'x-request-id': who.context.requestId },
  });
const DAY_MS = 86_400_000;

async function create(userId: number, extra: Record<string, unknown> = {}) {
  const res = await call('POST', '/api/ApiKeys', as(userId), { name: 'k', scopes: 'read:devices', ...extra });
  expect(res.status).toBe(201);
  return apiKeyCreatedResponseSchema.parse(await res.json());
}

describe('expiry', () => {
  it('stores expiresAt, shows it in the list, carries it in the cache record and audits it', async () => {
    const expiresAt = new Date(Date.now() + 3 * DAY_MS).toISOString();
    const created = await create(31, { expiresAt });
    expect(created.expiresAt).toBe(expiresAt);
    const list = apiKeyListResponseSchema.parse(await (await call('GET', '/api/ApiKeys', as(31))).json());
    expect(list.items.find((k) => k.id === created.id)).toMatchObject({ expiresAt, graceEndsAt: null });
    const cached = await h.cached(created.key);
    expect(cached?.record).toMatchObject({ expiresAtMs: Date.parse(expiresAt) });
    expect(capture.lines.find((l) => l.audit === 'api_key.created' && l.keyId === created.id)).toMatchObject({ expiresAt });
  });

  it('gives a key created without expiresAt the longest lifetime KEY_MAX_LIFETIME_DAYS allows, in the response and the cache record', async () => {
    const before = Date.now();
    const created = await create(32);
    expect(created.expiresAt).not.toBeNull();
    const expiresAtMs = Date.parse(created.expiresAt!);
    expect(expiresAtMs).toBeGreaterThanOrEqual(before + 90 * DAY_MS);
    expect(expiresAtMs).toBeLessThanOrEqual(Date.now() + 90 * DAY_MS);
    const cached = await h.cached(created.key);
    expect(cached?.record).toMatchObject({ expiresAtMs });
    expect(cached?.record).not.toHaveProperty('previousSecretHash');
  });

  it('refuses expiresAt: null (a key that never expires) with 400 naming the maximum', async () => {
    const res = await call('POST', '/api/ApiKeys', as(34), { name: 'k', scopes: 'read:devices', expiresAt: null });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string; details: { path: string; message: string }[] };
    expect(body.message).toMatch(/at most 90 days/);
    expect(body.details).toContainEqual({
      path: 'body.expiresAt',
      message: expect.stringMatching(/KEY_MAX_LIFETIME_DAYS.*90|90.*KEY_MAX_LIFETIME_DAYS/),
    });
    const list = apiKeyListResponseSchema.parse(await (await call('GET', '/api/ApiKeys', as(34))).json());
    expect(list.items).toHaveLength(0);
  });

  it('refuses an expiry in the past, beyond KEY_MAX_LIFETIME_DAYS or not an ISO instant with 400 and details', async () => {
    for (const expiresAt of [
      new Date(Date.now() - 1000).toISOString(),
      new Date(Date.now() + 91 * DAY_MS).toISOString(),
      'tomorrow',
      '2030-01-01',
      12345,
    ]) {
      const res = await call('POST', '/api/ApiKeys', as(33), { name: 'k', scopes: 'read:devices', expiresAt });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: string; details: { path: string }[] };
      expect(body.error).toBe('Bad request');
      expect(body.details.map((d) => d.path)).toContain('body.expiresAt');
    }
    const list = apiKeyListResponseSchema.parse(await (await call('GET', '/api/ApiKeys', as(33))).json());
    expect(list.items).toHaveLength(0);
  });
});

describe('rolling a secret', () => {
  it('answers a new secret, keeps the old hash as the previous one until the grace ends, audited, the secret never logged', async () => {
    const created = await create(41);
    const before = Date.now();
    const res = await call('POST', `/api/ApiKeys/${created.id}/roll`, as(41, 1, 'req-roll'), { graceSeconds: 3600 });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const rolled = apiKeyRolledResponseSchema.parse(await res.json());
    expect(rolled.id).toBe(created.id);
    expect(rolled.key).toBe(created.key);
    expect(rolled.secret).not.toBe(created.secret);
    const endsAt = Date.parse(rolled.graceEndsAt!);
    expect(endsAt).toBeGreaterThanOrEqual(before + 3600_000 - 2000);
    expect(endsAt).toBeLessThanOrEqual(Date.now() + 3600_000 + 2000);
    const cached = await h.cached(created.key);
    expect(cached?.record).toMatchObject({
      secretHash: sha256(rolled.secret),
      previousSecretHash: sha256(created.secret),
      previousSecretEndsAtMs: endsAt,
    });
    expect(capture.lines.find((l) => l.audit === 'api_key.rolled' && l.keyId === created.id)).toMatchObject({
      userId: 41,
      graceSeconds: 3600,
      requestId: 'req-roll',
    });
    expect(capture.text()).not.toContain(rolled.secret);
  });

  it('defaults to a day of grace without a body; graceSeconds 0 drops the old secret at once', async () => {
    const created = await create(42);
    const rolled = apiKeyRolledResponseSchema.parse(await (await call('POST', `/api/ApiKeys/${created.id}/roll`, as(42))).json());
    expect(Date.parse(rolled.graceEndsAt!) - Date.now()).toBeGreaterThan(86_400_000 - 5000);
    const again = apiKeyRolledResponseSchema.parse(
      await (await call('POST', `/api/ApiKeys/${created.id}/roll`, as(42), { graceSeconds: 0 })).json(),
    );
    expect(again.graceEndsAt).toBeNull();
    const cached = await h.cached(created.key);
    expect(cached?.record).toMatchObject({ secretHash: sha256(again.secret) });
    expect(cached?.record).not.toHaveProperty('previousSecretHash');
  });

  it("answers 404 for another user's key or an unknown id, 409 for a revoked key, 400 for bad graceSeconds", async () => {
    const created = await create(43);
    expect((await call('POST', `/api/ApiKeys/${created.id}/roll`, as(44), { graceSeconds: 0 })).status).toBe(404);
    expect((await call('POST', '/api/ApiKeys/not-a-uuid/roll', as(43))).status).toBe(404);
    expect((await call('POST', '/api/ApiKeys/00000000-0000-4000-8000-000000000000/roll', as(43))).status).toBe(404);
    for (const graceSeconds of [-1, 604_801, 1.5, '60', null]) {
      const res = await call('POST', `/api/ApiKeys/${created.id}/roll`, as(43), { graceSeconds });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { details: { path: string }[] }).details.map((d) => d.path)).toContain('body.graceSeconds');
    }
    expect((await call('POST', `/api/ApiKeys/${created.id}/roll`, as(43, 0))).status).toBe(403);
    expect((await h.cached(created.key))?.record).toMatchObject({ secretHash: sha256(created.secret) }); // nothing above changed it
    expect((await call('DELETE', `/api/ApiKeys/${created.id}`, as(43))).status).toBe(200);
    expect((await call('POST', `/api/ApiKeys/${created.id}/roll`, as(43))).status).toBe(409);
  });
});

describe('daily usage', () => {
  const sendBatch = (counts: unknown[]) =>
    signedFetch(h.url, INTERNAL_SECRET, 'POST', '/internal/keys/usage', {
      body: { usage: [], counts },
      context: { keyId: null, scopes: [] },
    });

  it('adds batches per key and day and answers every day of the range, zeros included, for the owner only', async () => {
    const created = await create(51);
    const today = new Date().toISOString().slice(0, 10);
    const twoDaysAgo = new Date(Date.now() - 2 * DAY_MS).toISOString().slice(0, 10);
    const counts = (date: string, n: number) => ({
      keyId: created.id,
      date,
      byStatus: { '2xx': n, '3xx': 0, '4xx': 2, '429': 1, '5xx': 0 },
    });
    expect((await sendBatch([counts(today, 5), counts(twoDaysAgo, 3)])).status).toBe(200);
    expect((await sendBatch([counts(today, 4)])).status).toBe(200);
    const res = await call('GET', `/api/ApiKeys/${created.id}/usage?days=3`, as(51, 0));
    expect(res.status).toBe(200);
    const usage = apiKeyUsageResponseSchema.parse(await res.json());
    expect(usage.days.map((d) => d.date)).toEqual([twoDaysAgo, new Date(Date.now() - DAY_MS).toISOString().slice(0, 10), today]);
    expect(usage.days.map((d) => d.requests)).toEqual([6, 0, 15]);
    expect(usage.days[2]!.byStatus).toEqual({ '2xx': 9, '3xx': 0, '4xx': 4, '429': 2, '5xx': 0 });
    expect(usage.days[1]!.byStatus).toEqual({ '2xx': 0, '3xx': 0, '4xx': 0, '429': 0, '5xx': 0 });
    const month = apiKeyUsageResponseSchema.parse(await (await call('GET', `/api/ApiKeys/${created.id}/usage`, as(51))).json());
    expect(month.days).toHaveLength(30);
    expect((await call('GET', `/api/ApiKeys/${created.id}/usage`, as(52))).status).toBe(404);
    expect((await call('GET', '/api/ApiKeys/nope/usage', as(51))).status).toBe(404);
  });

  it('refuses days outside 1-90 with 400 and details', async () => {
    const created = await create(53);
    for (const days of ['0', '91', 'x', '1.5', '-3']) {
      const res = await call('GET', `/api/ApiKeys/${created.id}/usage?days=${days}`, as(53));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { details: { path: string }[] }).details.map((d) => d.path)).toContain('query.days');
    }
  });

  it('drops counts of a key that does not exist without failing the batch', async () => {
    const created = await create(54);
    const today = new Date().toISOString().slice(0, 10);
    const res = await sendBatch([
      { keyId: '00000000-0000-4000-8000-000000000000', date: today, byStatus: { '2xx': 1, '3xx': 0, '4xx': 0, '429': 0, '5xx': 0 } },
      { keyId: created.id, date: today, byStatus: { '2xx': 0, '3xx': 0, '4xx': 0, '429': 0, '5xx': 7 } },
    ]);
    expect(res.status).toBe(200);
    const usage = apiKeyUsageResponseSchema.parse(await (await call('GET', `/api/ApiKeys/${created.id}/usage?days=1`, as(54))).json());
    expect(usage.days).toEqual([{ date: today, requests: 7, byStatus: { '2xx': 0, '3xx': 0, '4xx': 0, '429': 0, '5xx': 7 } }]);
  });
});
