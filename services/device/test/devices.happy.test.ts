import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { deviceListResponseSchema, deviceSchema, type DeviceView } from '@acs/contracts';
import { newUserId, startCatalog, startDevice, uniqueSerial, type CatalogFixture, type DeviceHarness } from './harness.js';

let catalog: CatalogFixture;
let h: DeviceHarness;

beforeAll(async () => {
  catalog = await startCatalog();
  h = await startDevice(catalog.url);
});
afterAll(async () => {
  await h?.stop();
  await catalog?.stop();
});

async function registered(userId: number, body: Record<string, unknown>): Promise<DeviceView> {
  const res = await h.register(userId, { serialNumber: uniqueSerial(), ...body });
  expect(res.status).toBe(201);
  return deviceSchema.parse(await res.json());
}

describe('GET /api/Devices', () => {
  it("lists the caller's devices newest first, each with its catalog summary", async () => {
    const userId = newUserId();
    const a = await registered(userId, { name: 'First', catalogEntryId: 1 });
    const b = await registered(userId, { name: 'Second' });
    const c = await registered(userId, { name: 'Third', catalogEntryId: 2, firmwareVersion: '2.0' });
    const res = await h.list(userId);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = deviceListResponseSchema.parse(await res.json());
    expect(body.catalogUnavailable).toBe(false);
    expect(body.items).toEqual([c, b, a]);
    expect(body.items[0]!.catalogEntry).toEqual({ id: 2, type: expect.any(String), brand: expect.any(String), model: expect.any(String) });
    expect(body.items[1]!.catalogEntry).toBeNull();
  });

  it('an empty list for a user without devices', async () => {
    const res = await h.list(newUserId());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ items: [], catalogUnavailable: false });
  });

  it("nobody sees another user's devices", async () => {
    const alice = newUserId();
    const bob = newUserId();
    const aliceDevice = await registered(alice, { name: 'Alice DAC', catalogEntryId: 1 });
    const bobDevice = await registered(bob, { name: 'Bob amp' });
    const aliceList = deviceListResponseSchema.parse(await (await h.list(alice)).json());
    const bobList = deviceListResponseSchema.parse(await (await h.list(bob)).json());
    expect(aliceList.items.map((d) => d.id)).toEqual([aliceDevice.id]);
    expect(bobList.items.map((d) => d.id)).toEqual([bobDevice.id]);
  });

  it('a re-registered device keeps its place (registeredAt is the first registration)', async () => {
    const userId = newUserId();
    const old = await registered(userId, { name: 'Old' });
    const newer = await registered(userId, { name: 'Newer' });
    expect((await h.register(userId, { serialNumber: old.serialNumber, name: 'Old renamed' })).status).toBe(200);
    const body = deviceListResponseSchema.parse(await (await h.list(userId)).json());
    expect(body.items.map((d) => [d.id, d.name])).toEqual([
      [newer.id, 'Newer'],
      [old.id, 'Old renamed'],
    ]);
  });

  it('lists at most the newest 500 devices', async () => {
    const userId = newUserId();
    await h.service.db.query(
      `INSERT INTO devices (owner_user_id, serial_number, name, registered_at)
       SELECT $1::bigint, 'BULK-' || $1::text || '-' || g, 'Bulk ' || g, now() - (g || ' seconds')::interval FROM generate_series(1, 510) AS g`,
      [userId],
    );
    const body = deviceListResponseSchema.parse(await (await h.list(userId)).json());
    expect(body.items).toHaveLength(500);
    expect(body.items[0]!.name).toBe('Bulk 1');
    expect(body.items[499]!.name).toBe('Bulk 500');
  });
});
