// What the embedded launcher and the tests use; the standalone entry is main.ts.
export { deviceConfigSchema, type DeviceConfig } from './config.js';
export { startDeviceService, DEVICE_MIGRATIONS_DIR, type DeviceService } from './service.js';
export { createCatalogClient, CatalogUnavailableError, type CatalogClient } from './domain/catalog-client.js';
