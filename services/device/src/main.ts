import { loadConfigOrExit } from '@acs/config';
import { createLogger } from '@acs/logger';
import { runStandalone } from '@acs/http';
import { deviceConfigSchema } from './config.js';
import { startDeviceService } from './service.js';

// Standalone entry (containers): `node services/device/dist/main.js`. Needs CATALOG_URL.
const config = loadConfigOrExit('device', deviceConfigSchema);
const logger = createLogger({ name: 'device', level: config.LOG_LEVEL });
await runStandalone(logger, 'device service', 'device', () => startDeviceService(config, logger));
