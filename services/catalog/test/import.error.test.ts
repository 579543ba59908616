import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { signedFetch } from '@acs/testing';
import { INTERNAL_SECRET, buildEntry, realCount, startCatalog, uniqueBrand, type CatalogHarness, type ErrorBody } from './harness.js';
import { ADMIN, postImport, snapshot } from './import-helpers.js';

let catalog: CatalogHarness;

beforeAll(async () => {
  catalog = await startCatalog();
});

afterAll(async () => {
  await catalog?.stop();
});

async function expectRefused(response: Response, status: number, before: string): Promise<ErrorBody> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as ErrorBody;
  expect(body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  expect(JSON.stringify(body)).not.toMatch(/stack|SELECT|INSERT/i);
  expect(await snapshot(catalog.db)).toBe(before);
  return body;
}

describe('POST /api/Dac/import with invalid rows', () => {
  it('writes nothing when one row of a batch is bad, and names its index and field', async () => {
    const brand = uniqueBrand('OneBad');
    const rows: unknown[] = [buildEntry({ brand }), buildEntry({ brand }), { ...buildEntry({ brand }), price: -5 }, buildEntry({ brand })];
    const before = await snapshot(catalog.db);
    const count = await realCount(catalog.db);
    const body = await expectRefused(await postImport(catalog, rows), 400, before);
    expect(body.error).toBe('Bad request');
    expect(body.message).toMatch(/1 problem\(s\) in 1 of 4 entries; nothing was written/);
    expect(body.details).toEqual([{ path: 'items[2].price', message: expect.stringMatching(/>=0|0/) }]);
    expect(await realCount(catalog.db)).toBe(count);
    expect(await realCount(catalog.db, brand)).toBe(0);
  });

  it('reports every problem of every row with nested paths, unknown fields at the field', async () => {
    const good = buildEntry();
    const rows: unknown[] = [
      { ...good, type: 'turntable' },
      { ...good, model: 'x2', specs: { ...good.specs, inputs: ['usb', 'floppy'] }, colour: 'red' },
      42,
      { ...good, model: 'x3', releaseYear: 1900, currency: 'usd' },
      { ...good, model: 'x4', specs: { ...good.specs, maxBitDepth: 20 } },
    ];
    const body = await expectRefused(await postImport(catalog, { items: rows }), 400, await snapshot(catalog.db));
    const paths = body.details!.map((detail) => detail.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'items[0].type',
        'items[1].specs.inputs[1]',
        'items[1].colour',
        'items[2]',
        'items[3].releaseYear',
        'items[3].currency',
        'items[4].specs.maxBitDepth',
      ]),
    );
    expect(body.details!.find((d) => d.path === 'items[1].colour')!.message).toBe('unknown field');
    // The values allowed, not zod's bare "Invalid input" for a union of literals.
    expect(body.details!.find((d) => d.path === 'items[4].specs.maxBitDepth')!.message).toBe('must be one of 16, 24, 32');
  });

  it('caps details at 100 and states the count of all problems', async () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => ({ ...buildEntry(), model: `Bad ${i}`, price: 'free' }));
    const response = await postImport(catalog, rows);
    const body = await expectRefused(response, 400, await snapshot(catalog.db));
    expect(body.details).toHaveLength(100);
    expect(body.details![99]!.path).toBe('items[99].price');
    expect(body.message).toMatch(/5000 problem\(s\) in 5000 of 5000 entries.*first 100 are listed/);
    expect(JSON.stringify(body).length).toBeLessThan(20_000);
  });

  it('refuses the same product twice in one batch (ignoring case), naming both indexes', async () => {
    const entry = buildEntry();
    const rows = [
      buildEntry(),
      entry,
      buildEntry(),
      { ...entry, brand: entry.brand.toUpperCase(), model: ` ${entry.model.toLowerCase()} `, price: 1 },
    ];
    const body = await expectRefused(await postImport(catalog, rows), 400, await snapshot(catalog.db));
    expect(body.details).toEqual([{ path: 'items[3]', message: expect.stringContaining('items[1]') }]);
  });

  it('treats one model under two types as two products, not a duplicate', async () => {
    const dac = buildEntry();
    const amp = { ...dac, type: 'amplifier', specs: { powerPerChannelW: 50, powerLoadOhms: 4, amplifierClass: 'D', channels: 2 } };
    const response = await postImport(catalog, [dac, amp]);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ inserted: 2, updated: 0, total: 2 });
  });

  it('a dry run reports the same details as the real import', async () => {
    const rows = [buildEntry(), { ...buildEntry(), brand: '' }];
    const before = await snapshot(catalog.db);
    const dry = await expectRefused(await postImport(catalog, rows, { query: '?dryRun=true' }), 400, before);
    const real = await expectRefused(await postImport(catalog, rows), 400, before);
    expect(dry.details).toEqual(real.details);
    expect(dry.details).toEqual([{ path: 'items[1].brand', message: expect.any(String) }]);
  });

  it('refuses a price the column cannot hold, naming the row', async () => {
    const body = await expectRefused(await postImport(catalog, [{ ...buildEntry(), price: 1e12 }]), 400, await snapshot(catalog.db));
    expect(body.details).toEqual([{ path: 'items[0].price', message: expect.stringMatching(/at most/) }]);
  });
});

describe('POST /api/Dac/import with a bad body or query', () => {
  const BAD_BODIES: Array<{ name: string; body: unknown; path: string }> = [
    { name: 'an object without items', body: { entries: [] }, path: 'body' },
    { name: 'items beside other keys', body: { items: [], extra: 1 }, path: 'body' },
    { name: 'items that is not an array', body: { items: {} }, path: 'body' },
    { name: 'a string', body: '"hello"', path: 'body' },
    { name: 'an empty array', body: [], path: 'items' },
  ];

  it.each(BAD_BODIES)('answers $name with 400 at $path', async ({ body, path }) => {
    const result = await expectRefused(await postImport(catalog, body), 400, await snapshot(catalog.db));
    expect(result.details).toEqual([{ path, message: expect.any(String) }]);
  });

  it('answers malformed JSON with 400', async () => {
    const body = await expectRefused(await postImport(catalog, '[{"type": "dac",'), 400, await snapshot(catalog.db));
    expect(body).toMatchObject({ error: 'Bad request', message: 'The request body is not valid JSON' });
  });

  it('answers a body that is not JSON with 415', async () => {
    await expectRefused(
      await postImport(catalog, 'type,brand', { headers: { 'content-type': 'text/csv' } }),
      415,
      await snapshot(catalog.db),
    );
  });

  it('answers a missing body with 400', async () => {
    const response = await signedFetch(catalog.url, INTERNAL_SECRET, 'POST', '/api/Dac/import', { context: ADMIN });
    await expectRefused(response, 400, await snapshot(catalog.db));
  });

  it.each(['?dryRun=yes', '?dry_run=true', '?dryRun=true&force=1', '?dryRun=true&dryRun=false'])(
    'answers the query %s with 400 and writes nothing',
    async (query) => {
      const brand = uniqueBrand('Query');
      const body = await expectRefused(await postImport(catalog, [buildEntry({ brand })], { query }), 400, await snapshot(catalog.db));
      expect(body.message).toBe('The request query is invalid');
    },
  );

  it('answers more than 20,000 rows with 413 before validating them', async () => {
    const rows = Array.from({ length: 20_001 }, () => ({}));
    const body = await expectRefused(await postImport(catalog, rows), 413, await snapshot(catalog.db));
    expect(body).toMatchObject({ error: 'Payload too large', message: expect.stringMatching(/20001 entries; at most 20000/) });
    expect(body.details).toBeUndefined();
  });

  it('answers a body over 16 MiB with 413, refused from its Content-Length', async () => {
    const big = JSON.stringify([{ ...buildEntry(), model: 'x'.repeat(16 * 1024 * 1024) }]);
    const body = await expectRefused(await postImport(catalog, big), 413, await snapshot(catalog.db));
    expect(body).toMatchObject({ error: 'Payload too large', message: `The request body exceeds the limit of ${16 * 1024 * 1024} bytes` });
  });

  it('answers a chunked body over 16 MiB with 413 once the limit is crossed', async () => {
    const chunk = new TextEncoder().encode(' '.repeat(1024 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 20) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const { signContext } = await import('@acs/auth');
    const { context, signature } = signContext(INTERNAL_SECRET, 'catalog', 'POST', '/api/Dac/import', ADMIN);
    const response = await fetch(`${catalog.url}/api/Dac/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-acs-context': context, 'x-acs-signature': signature },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    await expectRefused(response, 413, await snapshot(catalog.db));
  });
});
