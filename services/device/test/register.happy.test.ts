import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { deviceSchema } from '@acs/contracts';
import {
  captureLogger,
  newUserId,
  rowsOfSerial,
  startCatalog,
  startDevice,
  uniqueSerial,
  type CatalogFixture,
  type DeviceHarness,
  type LogLine,
} from './harness.js';

let catalog: CatalogFixture;
let h: DeviceHarness;
let logs: LogLine[];

beforeAll(async () => {
  catalog = await startCatalog();
  const captured = captureLogger();
  logs = captured.lines;
  h = await startDevice(catalog.url, { logger: captured.logger });
});
afterAll(async () => {
  await h?.stop();
  await catalog?.stop();
});

describe('POST /api/Devices/Register', () => {
  it('registers a new serial: 201 with the device and its catalog summary', async () => {
    const userId = newUserId();
    const serialNumber = uniqueSerial();
    const res = await h.register(userId, { serialNumber, name: '  Living room DAC  ', catalogEntryId: 1, firmwareVersion: '1.4.2' });
    expect(res.status).toBe(201);
    const device = deviceSchema.parse(await res.json());
    expect(device).toEqual({
      id: expect.any(Number),
      serialNumber,
      name: 'Living room DAC',
      catalogEntryId: 1,
      firmwareVersion: '1.4.2',
      registeredAt: expect.any(String),
      catalogEntry: { id: 1, type: expect.any(String), brand: expect.any(String), model: expect.any(String) },
    });
    expect(Math.abs(Date.parse(device.registeredAt) - Date.now())).toBeLessThan(60_000);
    const rows = await rowsOfSerial(h, serialNumber);
    expect(rows).toEqual([
      {
        id: device.id,
        owner_user_id: String(userId),
        serial_number: serialNumber,
        name: 'Living room DAC',
        catalog_entry_id: 1,
        firmware_version: '1.4.2',
      },
    ]);
    expect(logs).toContainEqual(expect.objectContaining({ audit: 'device.registered', deviceId: device.id, userId }));
  });

  it('registers a device without catalog entry or firmware version (both null)', async () => {
    const serialNumber = uniqueSerial();
    const res = await h.register(newUserId(), { serialNumber, name: 'Garage amp' });
    expect(res.status).toBe(201);
    expect(deviceSchema.parse(await res.json())).toMatchObject({
      serialNumber,
      catalogEntryId: null,
      firmwareVersion: null,
      catalogEntry: null,
    });
  });

  it('accepts every allowed serial character and the length limits', async () => {
    const serialNumber = `aZ09._:-${uniqueSerial()}`.padEnd(64, 'x');
    const res = await h.register(newUserId(), { serialNumber, name: 'n'.repeat(100), firmwareVersion: 'v'.repeat(32) });
    expect(res.status).toBe(201);
  });

  it('is idempotent for the same owner: 200 with the same device; name and firmware updated, registeredAt kept', async () => {
    const userId = newUserId();
    const serialNumber = uniqueSerial();
    const first = deviceSchema.parse(
      await (await h.register(userId, { serialNumber, name: 'Desk DAC', catalogEntryId: 1, firmwareVersion: '1.0.0' })).json(),
    );

    const retry = await h.register(userId, { serialNumber, name: 'Desk DAC', catalogEntryId: 1, firmwareVersion: '1.0.0' });
    expect(retry.status).toBe(200);
    expect(deviceSchema.parse(await retry.json())).toEqual(first);

    const updated = await h.register(userId, { serialNumber, name: 'Study DAC', firmwareVersion: '1.1.0' });
    expect(updated.status).toBe(200);
    const body = deviceSchema.parse(await updated.json());
    // Omitted catalogEntryId keeps the stored one (and its summary is still shown).
    expect(body).toEqual({ ...first, name: 'Study DAC', firmwareVersion: '1.1.0' });

    const rename = await h.register(userId, { serialNumber, name: 'Office DAC' });
    expect(deviceSchema.parse(await rename.json())).toMatchObject({
      id: first.id,
      name: 'Office DAC',
      firmwareVersion: '1.1.0',
      catalogEntryId: 1,
    });
    expect(await rowsOfSerial(h, serialNumber)).toHaveLength(1);
    expect(logs).toContainEqual(expect.objectContaining({ audit: 'device.reregistered', deviceId: first.id, userId }));
  });

  it('a re-registration can name another catalog entry', async () => {
    const userId = newUserId();
    const serialNumber = uniqueSerial();
    const first = deviceSchema.parse(await (await h.register(userId, { serialNumber, name: 'Box', catalogEntryId: 1 })).json());
    const res = await h.register(userId, { serialNumber, name: 'Box', catalogEntryId: 2 });
    expect(res.status).toBe(200);
    expect(deviceSchema.parse(await res.json())).toMatchObject({ id: first.id, catalogEntryId: 2, catalogEntry: { id: 2 } });
  });

  it('concurrent registrations of one serial by its owner make one device (one 201, the rest 200)', async () => {
    const userId = newUserId();
    const serialNumber = uniqueSerial();
    const responses = await Promise.all(Array.from({ length: 5 }, () => h.register(userId, { serialNumber, name: 'Race' })));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 201]);
    const ids = new Set(await Promise.all(responses.map(async (r) => ((await r.json()) as { id: number }).id)));
    expect(ids.size).toBe(1);
    expect(await rowsOfSerial(h, serialNumber)).toHaveLength(1);
  });
});
