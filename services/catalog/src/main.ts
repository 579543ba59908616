import { loadConfigOrExit } from '@acs/config';
import { createLogger } from '@acs/logger';
import { runStandalone } from '@acs/http';
import { catalogConfigSchema } from './config.js';
import { startCatalogService } from './service.js';

// Standalone entry (containers): `node services/catalog/dist/main.js`.
const config = loadConfigOrExit('catalog', catalogConfigSchema);
const logger = createLogger({ name: 'catalog', level: config.LOG_LEVEL });
await runStandalone(logger, 'catalog service', 'catalog', () => startCatalogService(config, logger));
