import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signContext } from '@acs/auth';
import { SPEC_ERRORS } from '@acs/errors';
import {
  countDevices,
  newUserId,
  startCatalog,
  startDevice,
  uniqueSerial,
  INTERNAL_SECRET,
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

const ROUTES = [
  ['POST', '/api/Devices/Register'],
  ['GET', '/api/Devices'],
] as const;

describe.each(ROUTES)('%s %s', (method, path) => {
  const body = method === 'POST' ? { serialNumber: 'SEC-1', name: 'x' } : undefined;

  it('403 with the spec body when the signed context has no user', async () => {
    const before = await countDevices(h);
    const res = await h.call(method, path, { body });
    expect(res.status).toBe(403);
    const error = (await res.json()) as ErrorBody;
    expect({ error: error.error, message: error.message }).toEqual({
      error: SPEC_ERRORS.insufficientUser.error,
      message: SPEC_ERRORS.insufficientUser.message,
    });
    expect(await countDevices(h)).toBe(before);
  });

  it('401 for an unsigned request', async () => {
    const res = await fetch(h.url + path, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'Unauthorized' });
  });

  it('401 for a context signed with another secret, or for another endpoint', async () => {
    const wrongSecret = signContext('x'.repeat(40), 'device', method, path, { requestId: 't', keyId: 'k', scopes: [], userId: 1 });
    const otherPath = signContext(INTERNAL_SECRET, 'device', method, '/api/Dac', { requestId: 't', keyId: 'k', scopes: [], userId: 1 });
    for (const signed of [wrongSecret, otherPath]) {
      const res = await fetch(h.url + path, {
        method,
        headers: { 'content-type': 'application/json', 'x-acs-context': signed.context, 'x-acs-signature': signed.signature },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      expect(res.status).toBe(401);
    }
  });
});

describe('the user comes only from the signed context', () => {
  it('an ownerUserId in the body is refused (unknown field), never used', async () => {
    const res = await h.register(newUserId(), { serialNumber: uniqueSerial(), name: 'x', ownerUserId: 1 });
    expect(res.status).toBe(400);
  });
});
