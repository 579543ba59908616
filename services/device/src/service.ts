import { internalKeys } from '@acs/config';
import { fileURLToPath } from 'node:url';
import { openConfiguredDatabaseIn, type Db } from '@acs/db';
import { listen, startWithCloseStack, type RunningServer } from '@acs/http';
import type { Logger } from '@acs/logger';
import { createMetricsRegistry } from '@acs/metrics';
import { buildDeviceApp } from './app.js';
import { consumeLater, type Bus } from '@acs/bus';
import { startUserDeletedConsumer } from './consumers/user-deleted-consumer.js';
import type { DeviceConfig } from './config.js';
import { createCatalogClient } from './domain/catalog-client.js';

export const DEVICE_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

export interface DeviceService {
  server: RunningServer;
  db: Db;
  close(): Promise<void>;
}

/** Starts the device service on its own database (PostgreSQL when DATABASE_URL is set, else PGlite under DATA_DIR/device). */
/**
 * With a bus (the embedded mode's, or main.ts's RabbitMQ one from AMQP_URL) it consumes user.deleted
 * and erases the user's devices (issue 32); without one nothing is consumed.
 */
export function startDeviceService(config: DeviceConfig, logger: Logger, bus?: Bus): Promise<DeviceService> {
  // A failed start (migration, port taken) closes what it opened: no pool stays behind.
  return startWithCloseStack(logger, async (stack) => {
    const db = await openConfiguredDatabaseIn(stack, 'device', config, DEVICE_MIGRATIONS_DIR, logger);
    const catalog = createCatalogClient(
      config.CATALOG_URL,
      config.CATALOG_PEER_SECRET ?? config.INTERNAL_SECRET,
      config.CATALOG_TIMEOUT_MS,
    );
    stack.defer('the catalog client', () => catalog.close());
    if (bus)
      stack.defer(
        'the user-events consumer',
        consumeLater(startUserDeletedConsumer({ db, logger }, bus, config.USER_EVENTS_QUEUE), logger),
      );
    const app = buildDeviceApp({
      deps: { db, logger, catalog },
      internalSecret: internalKeys(config),
      migrationsDir: DEVICE_MIGRATIONS_DIR,
      metrics: createMetricsRegistry('device'),
    });
    const server = await listen(app.callback(), config.PORT, config.HOST);
    stack.defer('the HTTP server', () => server.close());
    logger.info({ url: server.url, catalog: new URL(config.CATALOG_URL).origin }, 'device service listening');
    return { server, db, close: stack.close };
  });
}
