import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiKeyCreatedResponseSchema, apiKeyListResponseSchema, formatRateLimits, parseRateLimitsText } from '@acs/contracts';
import { signedFetch } from '@acs/testing';
import { INTERNAL_SECRET, silentLogger, startKeys, type KeysHarness } from './harness.js';

// Users' own rate limits at the keys service: stored, shown, written through, and held under RATE_LIMIT_CEILING.
let h: KeysHarness;
beforeAll(async () => {
  h = await startKeys({ logger: silentLogger(), env: { RATE_LIMIT_CEILING: '100/1s,100000/1d' } });
});
afterAll(async () => h.stop());

const as = (userId: number) => ({ context: { requestId: 'req-rl', keyId: 'dashboard', scopes: ['system:full-access'], userId, role: 1 } });
const call = (method: string, path: string, userId: number, body?: unknown) =>
  signedFetch(h.url, INTERNAL_SECRET, method, path, { ...as(userId), ...(body === undefined ? {} : { body }) });
const within = [
  { limit: 20, windowSeconds: 1 },
  { limit: 50_000, windowSeconds: 86_400 },
];

describe("rateLimits on users' keys", () => {
  it("POST stores them, GET shows them, and the gateway's record carries them", async () => {
    const res = await call('POST', '/api/ApiKeys', 301, { name: 'app key', scopes: 'read:devices', rateLimits: within });
    expect(res.status).toBe(201);
    const created = apiKeyCreatedResponseSchema.parse(await res.json());
    expect(created.rateLimits).toEqual(within);
    const list = apiKeyListResponseSchema.parse(await (await call('GET', '/api/ApiKeys', 301)).json());
    expect(list.items.find((k) => k.id === created.id)?.rateLimits).toEqual(within);
    expect((await h.cached(created.key))?.record).toMatchObject({ id: created.id, rateLimits: within });
  });

  it('a key without its own limits shows null and its record carries none (the default applies)', async () => {
    const created = apiKeyCreatedResponseSchema.parse(
      await (await call('POST', '/api/ApiKeys', 302, { name: 'plain', scopes: 'read:devices' })).json(),
    );
    expect(created.rateLimits).toBeNull();
    const record = (await h.cached(created.key))?.record;
    expect(record).not.toBe('missing');
    expect(record).not.toHaveProperty('rateLimits');
  });

  it('PATCH sets, changes and clears them, writing each change through before it answers', async () => {
    const created = apiKeyCreatedResponseSchema.parse(
      await (await call('POST', '/api/ApiKeys', 303, { name: 'k', scopes: 'read:devices' })).json(),
    );
    const set = await call('PATCH', `/api/ApiKeys/${created.id}`, 303, {
      rateLimits: [
        { limit: 5, windowSeconds: 1 },
        { limit: 10, windowSeconds: 86_400 },
        { limit: 7, windowSeconds: 60 },
      ],
    });
    expect(set.status).toBe(200);
    expect(((await h.cached(created.key))!.record as { rateLimits: unknown }).rateLimits).toEqual([
      { limit: 5, windowSeconds: 1 },
      { limit: 10, windowSeconds: 86_400 },
      { limit: 7, windowSeconds: 60 },
    ]);
    const before = (await h.cached(created.key))!.version;
    const cleared = await call('PATCH', `/api/ApiKeys/${created.id}`, 303, { rateLimits: null });
    expect(await cleared.json()).toMatchObject({ id: created.id, rateLimits: null });
    const after = await h.cached(created.key);
    expect(after!.version).toBe(before + 1);
    expect(after!.record).not.toHaveProperty('rateLimits');
  });

  it('refuses limits above the ceiling, or missing one of its windows, with 400 and details', async () => {
    const created = apiKeyCreatedResponseSchema.parse(
      await (await call('POST', '/api/ApiKeys', 304, { name: 'k', scopes: 'read:devices' })).json(),
    );
    const cases = [
      [
        { limit: 101, windowSeconds: 1 },
        { limit: 10, windowSeconds: 86_400 },
      ],
      [{ limit: 10, windowSeconds: 1 }],
      [
        { limit: 10, windowSeconds: 1 },
        { limit: 100_001, windowSeconds: 86_400 },
      ],
    ];
    for (const rateLimits of cases) {
      for (const res of [
        await call('POST', '/api/ApiKeys', 304, { name: 'over', scopes: 'read:devices', rateLimits }),
        await call('PATCH', `/api/ApiKeys/${created.id}`, 304, { rateLimits }),
      ]) {
        expect(res.status).toBe(400);
        const body = (await res.json()) as { error: string; message: string; details: { path: string; message: string }[] };
        expect(body).toMatchObject({ error: 'Bad request', message: expect.stringContaining('100/1s,100000/1d') });
        expect(body.details.length).toBeGreaterThan(0);
      }
    }
    // Nothing was stored by the refusals: the key still has no limits of its own, and no extra key was made.
    const list = apiKeyListResponseSchema.parse(await (await call('GET', '/api/ApiKeys', 304)).json());
    expect(list.items.map((k) => k.rateLimits)).toEqual([null]);
    // At the ceiling exactly is fine, and a further, stricter window is free.
    const atCeiling = [
      { limit: 100, windowSeconds: 1 },
      { limit: 100_000, windowSeconds: 86_400 },
      { limit: 1000, windowSeconds: 60 },
    ];
    expect((await call('PATCH', `/api/ApiKeys/${created.id}`, 304, { rateLimits: atCeiling })).status).toBe(200);
  });

  it('refuses malformed lists with 400: out of range, too many, repeated windows, extra fields, empty', async () => {
    const bad = [
      [{ limit: 0, windowSeconds: 1 }],
      [{ limit: 1_000_000_001, windowSeconds: 1 }],
      [{ limit: 1, windowSeconds: 86_401 }],
      [{ limit: 1.5, windowSeconds: 1 }],
      [
        { limit: 1, windowSeconds: 1 },
        { limit: 2, windowSeconds: 1 },
      ],
      [1, 2, 3, 4, 5].map((n) => ({ limit: n, windowSeconds: n })),
      [{ limit: 1, windowSeconds: 1, burst: 3 }],
      [],
      '20/1s',
    ];
    for (const rateLimits of bad) {
      const res = await call('POST', '/api/ApiKeys', 305, { name: 'bad', scopes: 'read:devices', rateLimits });
      expect({ rateLimits, status: res.status }).toEqual({ rateLimits, status: 400 });
    }
  });
});

describe('the text form used by the CLI and the environment', () => {
  it('parses units and formats back', () => {
    expect(parseRateLimitsText('20/1s, 50000/1d')).toEqual(within);
    expect(parseRateLimitsText('7/s,300/5m,9/2h')).toEqual([
      { limit: 7, windowSeconds: 1 },
      { limit: 300, windowSeconds: 300 },
      { limit: 9, windowSeconds: 7200 },
    ]);
    expect(formatRateLimits(parseRateLimitsText('20/1s,300/5m,9/2h,50000/1d'))).toBe('20/1s,300/5m,9/2h,50000/1d');
    for (const text of ['20', '20/1w', '0/1s', '20/0s', '1/2d', 'a/1s', '1/1s,2/1s', '1/1s,1/2s,1/3s,1/4s,1/5s'])
      expect(() => parseRateLimitsText(text)).toThrow();
  });
});
