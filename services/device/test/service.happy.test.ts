import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig, ConfigError } from '@acs/config';
import { deviceSchema } from '@acs/contracts';
import { signedFetch } from '@acs/testing';
import { deviceConfigSchema, startDeviceService, type DeviceService } from '../src/index.js';
import { INTERNAL_SECRET, newUserId, silentLogger, startCatalog, uniqueSerial, type CatalogFixture } from './harness.js';

describe('configuration', () => {
  it('defaults: port 8084, catalog deadline 2000 ms; CATALOG_URL and INTERNAL_SECRET are required', () => {
    const config = parseConfig('device', deviceConfigSchema, { INTERNAL_SECRET, CATALOG_URL: 'http://catalog:8082' });
    expect(config).toMatchObject({ PORT: 8084, HOST: '0.0.0.0', CATALOG_TIMEOUT_MS: 2000, DATA_DIR: './.data' });
    expect(() => parseConfig('device', deviceConfigSchema, { INTERNAL_SECRET })).toThrow(ConfigError);
    expect(() => parseConfig('device', deviceConfigSchema, { INTERNAL_SECRET, CATALOG_URL: 'ftp://x' })).toThrow(/CATALOG_URL/);
    expect(() => parseConfig('device', deviceConfigSchema, { INTERNAL_SECRET, CATALOG_URL: 'http://x', CATALOG_TIMEOUT_MS: '10' })).toThrow(
      /CATALOG_TIMEOUT_MS/,
    );
  });
});

describe('embedded mode (PGlite under DATA_DIR/device)', () => {
  let catalog: CatalogFixture;
  let dataDir: string;
  let service: DeviceService | undefined;

  beforeAll(async () => {
    catalog = await startCatalog();
    dataDir = await mkdtemp(join(tmpdir(), 'device-test-'));
  });
  afterAll(async () => {
    await service?.close();
    await catalog?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('registers, re-registers and lists on PGlite, and /readyz reports ready', async () => {
    const config = deviceConfigSchema.parse({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, INTERNAL_SECRET, CATALOG_URL: catalog.url });
    service = await startDeviceService(config, silentLogger());
    const url = service.server.url;
    const userId = newUserId();
    const call = (method: string, path: string, body?: unknown) =>
      signedFetch(url, INTERNAL_SECRET, method, path, { ...(body ? { body } : {}), context: { userId, role: 0 } });
    const serialNumber = uniqueSerial();
    const first = await call('POST', '/api/Devices/Register', { serialNumber, name: 'Embedded', catalogEntryId: 1 });
    expect(first.status).toBe(201);
    const device = deviceSchema.parse(await first.json());
    const again = await call('POST', '/api/Devices/Register', { serialNumber, name: 'Embedded' });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: number }).id).toBe(device.id);
    const other = await signedFetch(url, INTERNAL_SECRET, 'POST', '/api/Devices/Register', {
      body: { serialNumber, name: 'x' },
      context: { userId: userId + 1, role: 0 },
    });
    expect(other.status).toBe(409);
    expect(await (await call('GET', '/api/Devices')).json()).toEqual({ items: [device], catalogUnavailable: false });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
  }, 90_000); // an embedded PGlite opens in 5-10 s on a quiet machine and several times that on a loaded one
});
