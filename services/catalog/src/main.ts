import { loadConfigOrExit } from '@acs/config';
import { createLogger } from '@acs/logger';
import { stopOnSignals } from '@acs/http';
import { catalogConfigSchema } from './config.js';
import { startCatalogService } from './service.js';

// Standalone entry (containers): `node services/catalog/dist/main.js`.
const config = loadConfigOrExit('catalog', catalogConfigSchema);
const logger = createLogger({ name: 'catalog', level: config.LOG_LEVEL });
try {
  const service = await startCatalogService(config, logger);
  stopOnSignals(logger, () => service.close());
} catch (err) {
  logger.fatal({ err }, 'catalog service failed to start');
  process.exit(1);
}
