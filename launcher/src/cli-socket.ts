import { serveSystemSocket } from '@acs/cli';
import type { Cache } from '@acs/cache';
import { openServiceDatabase, type Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { BILLING_MIGRATIONS_DIR } from '@acs/billing-service';
import { CATALOG_MIGRATIONS_DIR } from '@acs/catalog-service';
import { IDENTITY_MIGRATIONS_DIR } from '@acs/identity-service';
import { KEYS_MIGRATIONS_DIR } from '@acs/keys-service';
import { WEBHOOKS_MIGRATIONS_DIR } from '@acs/webhooks-service';

/** The services with a CLI (npm run keys, users, catalog, billing, webhooks; npm run audit reads billing's trail too) and where their migrations are. */
const CLI_SERVICES = {
  keys: KEYS_MIGRATIONS_DIR,
  identity: IDENTITY_MIGRATIONS_DIR,
  catalog: CATALOG_MIGRATIONS_DIR,
  billing: BILLING_MIGRATIONS_DIR,
  webhooks: WEBHOOKS_MIGRATIONS_DIR,
};

/**
 * Embedded mode only: the socket the CLIs use while the system runs (libs/cli, system-socket).
 * Each service's handle is its own schema of the shared PGlite, as the service itself has it.
 */
export async function serveCliSocket(dataDir: string, cache: Cache, logger: Logger): Promise<() => Promise<void>> {
  const databases: Record<string, Db> = {};
  const closeAll = () => Promise.all(Object.values(databases).map((db) => db.close())).then(() => undefined);
  try {
    for (const [service, migrationsDir] of Object.entries(CLI_SERVICES)) {
      databases[service] = await openServiceDatabase({ service, dataDir, migrationsDir, logger });
    }
    const server = await serveSystemSocket({ dataDir, databases, cache, logger }).catch((err: unknown) => {
      // E.g. a DATA_DIR path too long for a Unix socket (about 100 bytes): the system still runs.
      logger.warn({ err }, 'the CLIs cannot reach this running system (no socket); stop it to use them');
      return null;
    });
    if (!server) {
      await closeAll();
      return async () => {};
    }
    return async () => {
      await server.close();
      await closeAll();
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
