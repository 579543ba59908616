import { randomBytes, randomInt } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from '@acs/logger';
import { createTestDatabase, signedFetch, type TestDatabase } from '@acs/testing';
import type { InternalContext } from '@acs/auth';
import { catalogConfigSchema, startCatalogService, type CatalogService } from '@acs/catalog-service';
import { deviceConfigSchema, startDeviceService, type DeviceService } from '../src/index.js';
import { captureLogger as captureLines, listenOnLoopback, silentLogger as silent, unusedPort, type LogLine } from '@acs/testing';

export type { LogLine };
export const silentLogger = (): Logger => silent('device-test');
export const captureLogger = (name = 'device-test') => captureLines(name, 'info');

export const INTERNAL_SECRET = `device-test-secret-${randomBytes(16).toString('hex')}`;

/** A real catalog service on a seeded database of its own (entries 1.. exist). */
export interface CatalogFixture {
  url: string;
  service: CatalogService;
  stop(): Promise<void>;
}

export async function startCatalog(): Promise<CatalogFixture> {
  const database = await createTestDatabase('device_catalog');
  const config = catalogConfigSchema.parse({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    INTERNAL_SECRET,
    CATALOG_SEED: 'true',
    DB_POOL_SIZE: '4',
  });
  const service = await startCatalogService(config, silentLogger()).catch(async (err: unknown) => {
    await database.drop();
    throw err;
  });
  return {
    url: service.server.url,
    service,
    stop: async () => {
      await service.close();
      await database.drop();
    },
  };
}

export interface DeviceHarness {
  database: TestDatabase;
  service: DeviceService;
  url: string;
  /** Calls the service as the gateway would, as the given user (or with no user: `userId: undefined`). */
  call(
    method: string,
    path: string,
    options?: { userId?: number | undefined; body?: unknown; context?: Partial<InternalContext>; headers?: Record<string, string> },
  ): Promise<Response>;
  register(userId: number, body: unknown): Promise<Response>;
  list(userId: number): Promise<Response>;
  stop(): Promise<void>;
}

export async function startDevice(
  catalogUrl: string,
  options: { env?: Record<string, string>; logger?: Logger } = {},
): Promise<DeviceHarness> {
  const database = await createTestDatabase('device');
  const config = deviceConfigSchema.parse({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: database.url,
    INTERNAL_SECRET,
    CATALOG_URL: catalogUrl,
    ...options.env,
  });
  const service = await startDeviceService(config, options.logger ?? silentLogger()).catch(async (err: unknown) => {
    await database.drop();
    throw err;
  });
  const url = service.server.url;
  const harness: DeviceHarness = {
    database,
    service,
    url,
    call(method, path, callOptions = {}) {
      const context: Partial<InternalContext> = { scopes: ['register:device', 'auth:login'], ...callOptions.context };
      if (callOptions.userId !== undefined) {
        context.userId = callOptions.userId;
        context.role = 0;
      }
      return signedFetch(url, INTERNAL_SECRET, method, path, {
        audience: 'device',
        ...(callOptions.body === undefined ? {} : { body: callOptions.body }),
        ...(callOptions.headers ? { headers: callOptions.headers } : {}),
        context,
      });
    },
    register: (userId, body) => harness.call('POST', '/api/Devices/Register', { userId, body }),
    list: (userId) => harness.call('GET', '/api/Devices', { userId }),
    stop: async () => {
      await service.close();
      await database.drop();
    },
  };
  return harness;
}

/** An http URL on which nothing listens (a port that was free a moment ago). */
export async function closedUrl(): Promise<string> {
  return `http://127.0.0.1:${await unusedPort()}`;
}

/** A TCP server that accepts connections and never answers: a hung catalog. */
export async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A serial no other test uses. */
export function uniqueSerial(prefix = 'SN'): string {
  return `${prefix}-${randomBytes(6).toString('hex').toUpperCase()}`;
}

/** A user id no other test uses (each suite has a fresh database; random keeps suites apart too). */
export function newUserId(): number {
  return randomInt(1, 2_000_000_000);
}

export interface DeviceRow {
  id: number;
  owner_user_id: string;
  serial_number: string;
  name: string;
  catalog_entry_id: number | null;
  firmware_version: string | null;
}

export async function rowsOfSerial(harness: DeviceHarness, serial: string): Promise<DeviceRow[]> {
  const { rows } = await harness.service.db.query<DeviceRow>(
    'SELECT id, owner_user_id::text, serial_number, name, catalog_entry_id, firmware_version FROM devices WHERE serial_number = $1',
    [serial],
  );
  return rows;
}

export async function countDevices(harness: DeviceHarness): Promise<number> {
  const { rows } = await harness.service.db.query<{ n: string }>('SELECT count(*)::text AS n FROM devices');
  return Number(rows[0]!.n);
}

export interface ErrorBody {
  error: string;
  message: string;
  requestId?: string;
  details?: Array<{ path: string; message: string }>;
}
