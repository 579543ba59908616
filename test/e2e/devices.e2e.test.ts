import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { deviceListResponseSchema, deviceSchema } from '@acs/contracts';
import { SPEC_ERRORS } from '@acs/errors';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';
import { appKey, bearer, json, newUser, type Auth, type User } from './actors.js';

// Issue 6, devices, through the gateway: register:device for firmware, auth:login to list.
let sut: SystemUnderTest;
let app: Auth;
let firmware: Auth;
let alice: User;
let bob: User;

beforeAll(async () => {
  sut = await startSystemUnderTest();
  app = await appKey(sut, ['auth:register', 'auth:login']);
  firmware = await appKey(sut, ['auth:login', 'register:device']);
  alice = await newUser(sut, app);
  bob = await newUser(sut, app);
}, 60_000);
afterAll(async () => sut?.stop());

const serial = () => `SN-${randomBytes(6).toString('hex')}`;
const register = (user: User, body: unknown) => sut.call('POST', '/api/Devices/Register', firmware, bearer(user.token, json(body)));
const list = async (user: User) =>
  deviceListResponseSchema.parse(await (await sut.call('GET', '/api/Devices', app, bearer(user.token))).json());

describe('devices through the gateway', () => {
  it('registers a device with its catalog entry, and a retry answers 200 with the same device', async () => {
    const sn = serial();
    const first = await register(alice, { serialNumber: sn, name: 'Desk DAC', catalogEntryId: 1, firmwareVersion: '1.0.3' });
    expect(first.status).toBe(201);
    const device = deviceSchema.parse(await first.json());
    expect(device).toMatchObject({ serialNumber: sn, name: 'Desk DAC', catalogEntryId: 1, catalogEntry: { id: 1 } });
    const again = await register(alice, { serialNumber: sn, name: 'Desk DAC', catalogEntryId: 1, firmwareVersion: '1.0.4' });
    expect(again.status).toBe(200);
    expect(deviceSchema.parse(await again.json())).toMatchObject({ id: device.id, firmwareVersion: '1.0.4' });
  });

  it('refuses a serial owned by someone else with 409, and an unknown catalog entry with 422', async () => {
    const sn = serial();
    expect((await register(alice, { serialNumber: sn, name: 'Amp' })).status).toBe(201);
    const taken = await register(bob, { serialNumber: sn, name: 'Mine now' });
    expect(taken.status).toBe(409);
    expect(await taken.json()).toMatchObject({ error: 'Conflict' });
    const unknown = await register(bob, { serialNumber: serial(), name: 'Ghost', catalogEntryId: 99_999_999 });
    expect(unknown.status).toBe(422);
    expect((await list(bob)).items.some((d) => d.name === 'Ghost' || d.serialNumber === sn)).toBe(false);
  });

  it("lists only the caller's devices, newest first", async () => {
    const carol = await newUser(sut, app);
    await register(carol, { serialNumber: serial(), name: 'first' });
    await register(carol, { serialNumber: serial(), name: 'second', catalogEntryId: 2 });
    const mine = await list(carol);
    expect(mine.items.map((d) => d.name)).toEqual(['second', 'first']);
    expect(mine.items[0]!.catalogEntry).toMatchObject({ id: 2 });
    expect((await list(alice)).items.some((d) => d.name === 'second')).toBe(false);
  });

  it('refuses a missing JWT (spec 403), the wrong scope (spec 403) and missing fields (400)', async () => {
    const noJwt = await sut.call('POST', '/api/Devices/Register', firmware, json({ serialNumber: serial(), name: 'x' }));
    expect(noJwt.status).toBe(403);
    expect(await noJwt.json()).toMatchObject({ error: SPEC_ERRORS.insufficientUser.error, message: SPEC_ERRORS.insufficientUser.message });
    const wrongScope = await sut.call(
      'POST',
      '/api/Devices/Register',
      app,
      bearer(alice.token, json({ serialNumber: serial(), name: 'x' })),
    );
    expect(wrongScope.status).toBe(403);
    expect(await wrongScope.json()).toMatchObject({ message: SPEC_ERRORS.insufficientScope.message });
    const missing = await register(alice, { name: 'no serial' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ details: expect.any(Array) });
  });
});
