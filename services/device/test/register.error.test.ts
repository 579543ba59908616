import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { deviceSchema } from '@acs/contracts';
import {
  countDevices,
  newUserId,
  rowsOfSerial,
  startCatalog,
  startDevice,
  uniqueSerial,
  type CatalogFixture,
  type DeviceHarness,
  type ErrorBody,
} from './harness.js';

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

describe('POST /api/Devices/Register refusals', () => {
  it('409 for a serial another user owns, naming nobody, and changing nothing', async () => {
    const owner = newUserId();
    const other = newUserId();
    const serialNumber = uniqueSerial();
    expect((await h.register(owner, { serialNumber, name: 'Mine', firmwareVersion: '1.0' })).status).toBe(201);
    const before = await rowsOfSerial(h, serialNumber);

    const res = await h.register(other, { serialNumber, name: 'Stolen', firmwareVersion: '9.9', catalogEntryId: 1 });
    expect(res.status).toBe(409);
    const body = (await res.json()) as ErrorBody;
    expect(body).toEqual({
      error: 'Conflict',
      message: 'This serial number is registered to another account',
      code: 'serial_taken',
      requestId: expect.any(String),
    });
    expect(JSON.stringify(body)).not.toContain(String(owner));
    expect(await rowsOfSerial(h, serialNumber)).toEqual(before);
  });

  it('concurrent registration of one serial by two users: exactly one 201 and one 409', async () => {
    for (let round = 0; round < 5; round += 1) {
      const serialNumber = uniqueSerial();
      const [a, b] = [newUserId(), newUserId()];
      const responses = await Promise.all([h.register(a, { serialNumber, name: 'A' }), h.register(b, { serialNumber, name: 'B' })]);
      expect(responses.map((r) => r.status).sort()).toEqual([201, 409]);
      const winner = responses.find((r) => r.status === 201)!;
      const device = deviceSchema.parse(await winner.json());
      const rows = await rowsOfSerial(h, serialNumber);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.id).toBe(device.id);
      expect(rows[0]!.name).toBe(device.name);
    }
  });

  it('422 for a catalog entry id that does not exist, and nothing written', async () => {
    const serialNumber = uniqueSerial();
    const res = await h.register(newUserId(), { serialNumber, name: 'Phantom', catalogEntryId: 2_000_000_000 });
    expect(res.status).toBe(422);
    const body = (await res.json()) as ErrorBody;
    expect(body).toMatchObject({ error: 'Unprocessable entity', message: 'There is no catalog entry with id 2000000000' });
    expect(body.details).toEqual([{ path: 'body.catalogEntryId', message: 'No catalog entry has this id' }]);
    expect(await rowsOfSerial(h, serialNumber)).toEqual([]);
  });

  it('422 on a re-registration naming an unknown entry leaves the device as it was', async () => {
    const userId = newUserId();
    const serialNumber = uniqueSerial();
    await h.register(userId, { serialNumber, name: 'Kept', catalogEntryId: 1 });
    const before = await rowsOfSerial(h, serialNumber);
    expect((await h.register(userId, { serialNumber, name: 'Changed', catalogEntryId: 2_000_000_001 })).status).toBe(422);
    expect(await rowsOfSerial(h, serialNumber)).toEqual(before);
  });

  it('400 with details for missing fields', async () => {
    const res = await h.register(newUserId(), {});
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error).toBe('Bad request');
    expect(body.message).toBe('The request body is invalid');
    expect(body.details!.map((d) => d.path).sort()).toEqual(['body.name', 'body.serialNumber']);
  });

  it.each([
    ['an empty serial', { serialNumber: '', name: 'x' }, 'body.serialNumber'],
    ['a serial with a space', { serialNumber: 'AB 12', name: 'x' }, 'body.serialNumber'],
    ['a serial with a slash', { serialNumber: 'AB/12', name: 'x' }, 'body.serialNumber'],
    ['a serial of 65 characters', { serialNumber: 'A'.repeat(65), name: 'x' }, 'body.serialNumber'],
    ['a numeric serial', { serialNumber: 12345, name: 'x' }, 'body.serialNumber'],
    ['a blank name', { serialNumber: 'OK-1', name: '   ' }, 'body.name'],
    ['a name of 101 characters', { serialNumber: 'OK-1', name: 'n'.repeat(101) }, 'body.name'],
    ['a name with a control character', { serialNumber: 'OK-1', name: 'a\u0000b' }, 'body.name'],
    ['catalogEntryId 0', { serialNumber: 'OK-1', name: 'x', catalogEntryId: 0 }, 'body.catalogEntryId'],
    ['catalogEntryId 1.5', { serialNumber: 'OK-1', name: 'x', catalogEntryId: 1.5 }, 'body.catalogEntryId'],
    ['catalogEntryId as a string', { serialNumber: 'OK-1', name: 'x', catalogEntryId: '1' }, 'body.catalogEntryId'],
    ['catalogEntryId null', { serialNumber: 'OK-1', name: 'x', catalogEntryId: null }, 'body.catalogEntryId'],
    ['an empty firmware version', { serialNumber: 'OK-1', name: 'x', firmwareVersion: '' }, 'body.firmwareVersion'],
    ['a firmware version of 33 characters', { serialNumber: 'OK-1', name: 'x', firmwareVersion: 'v'.repeat(33) }, 'body.firmwareVersion'],
  ])('400 for %s', async (_what, body, path) => {
    const before = await countDevices(h);
    const res = await h.register(newUserId(), body);
    expect(res.status).toBe(400);
    const error = (await res.json()) as ErrorBody;
    expect(error.details!.map((d) => d.path)).toContain(path);
    expect(await countDevices(h)).toBe(before);
  });

  it('400 for an unknown field (a firmware typo is refused, not dropped)', async () => {
    const res = await h.register(newUserId(), { serialNumber: uniqueSerial(), name: 'x', firmware: '1.0' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.details).toEqual([{ path: 'body.firmware', message: 'unknown field' }]);
  });

  it('400 for a body that is not a JSON object, or not JSON at all', async () => {
    expect((await h.register(newUserId(), [])).status).toBe(400);
    expect((await h.register(newUserId(), 'null')).status).toBe(400);
    const res = await h.call('POST', '/api/Devices/Register', {
      userId: newUserId(),
      body: '{"serialNumber":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).message).toBe('The request body is not valid JSON');
  });

  it('413 for an oversized body, nothing written', async () => {
    const before = await countDevices(h);
    const res = await h.register(newUserId(), { serialNumber: uniqueSerial(), name: 'x'.repeat(100_000) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as ErrorBody).error).toBe('Payload too large');
    expect(await countDevices(h)).toBe(before);
  });

  it('415 for a body that is not JSON', async () => {
    const res = await h.call('POST', '/api/Devices/Register', {
      userId: newUserId(),
      body: 'serialNumber=1',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
  });
});
