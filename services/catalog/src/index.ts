export { catalogConfigSchema, type CatalogConfig } from './config.js';
export { startCatalogService, CATALOG_MIGRATIONS_DIR, type CatalogService } from './service.js';
