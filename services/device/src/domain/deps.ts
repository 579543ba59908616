import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import type { CatalogClient } from './catalog-client.js';

/** What the use cases need; built once in service.ts and passed down. */
export interface DeviceDeps {
  db: Db;
  logger: Logger;
  catalog: CatalogClient;
}
