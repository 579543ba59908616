import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { deviceListResponseSchema, deviceSchema } from '@acs/contracts';
import {
  closedUrl,
  countDevices,
  newUserId,
  rowsOfSerial,
  silentServer,
  startCatalog,
  startDevice,
  uniqueSerial,
  type DeviceHarness,
  type ErrorBody,
} from './harness.js';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (stops.length > 0) await stops.pop()!();
});
afterAll(async () => {
  while (stops.length > 0) await stops.pop()!();
});

async function deviceWith(catalogUrl: string, env: Record<string, string> = {}): Promise<DeviceHarness> {
  const h = await startDevice(catalogUrl, { env });
  stops.push(() => h.stop());
  return h;
}

describe('when the catalog cannot be asked', () => {
  it('503 for a registration naming a catalog entry, with Retry-After, and nothing written', async () => {
    const h = await deviceWith(await closedUrl());
    const serialNumber = uniqueSerial();
    const res = await h.register(newUserId(), { serialNumber, name: 'x', catalogEntryId: 1 });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    const body = (await res.json()) as ErrorBody;
    expect(body).toMatchObject({ error: 'Service unavailable', message: expect.stringContaining('catalog') });
    expect(await countDevices(h)).toBe(0);
    expect(await rowsOfSerial(h, serialNumber)).toEqual([]);
  });

  it('503 within the deadline when the catalog hangs', async () => {
    const hung = await silentServer();
    stops.push(() => hung.close());
    const h = await deviceWith(hung.url, { CATALOG_TIMEOUT_MS: '300' });
    const started = Date.now();
    const res = await h.register(newUserId(), { serialNumber: uniqueSerial(), name: 'x', catalogEntryId: 1 });
    expect(res.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await countDevices(h)).toBe(0);
  });

  it('a registration without a catalog entry needs no catalog: 201', async () => {
    const h = await deviceWith(await closedUrl());
    const res = await h.register(newUserId(), { serialNumber: uniqueSerial(), name: 'x' });
    expect(res.status).toBe(201);
  });

  it('listing still answers the devices, without summaries and with catalogUnavailable: true', async () => {
    // Devices registered while the catalog was up, listed after it went down.
    const catalog = await startCatalog();
    let catalogStopped = false;
    stops.push(async () => {
      if (!catalogStopped) await catalog.stop();
    });
    const h = await deviceWith(catalog.url);
    const userId = newUserId();
    const device = deviceSchema.parse(
      await (await h.register(userId, { serialNumber: uniqueSerial(), name: 'x', catalogEntryId: 1 })).json(),
    );
    expect(device.catalogEntry).not.toBeNull();
    await catalog.stop();
    catalogStopped = true;

    const res = await h.list(userId);
    expect(res.status).toBe(200);
    const body = deviceListResponseSchema.parse(await res.json());
    expect(body).toEqual({ items: [{ ...device, catalogEntry: null }], catalogUnavailable: true });

    // A re-registration that does not name the entry again still works, without the summary.
    const again = await h.register(userId, { serialNumber: device.serialNumber, name: 'renamed' });
    expect(again.status).toBe(200);
    expect(deviceSchema.parse(await again.json())).toMatchObject({ id: device.id, name: 'renamed', catalogEntryId: 1, catalogEntry: null });
  });
});
