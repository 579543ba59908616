import { listenForNotifications, type Db, type Listener } from '@acs/db';
import type { Logger } from '@acs/logger';
import type { CatalogReads } from './catalog-reads.js';
import { readCatalogVersion } from './catalog-version.js';

/** The channel migration 005 notifies on, with the new version as payload. */
const CHANNEL = 'catalog_version';

/**
 * Tells `reads` every catalog version committed on the primary, whoever wrote it: LISTEN on the
 * primary (its own connection), and after every (re)connection the primary's current version,
 * which covers whatever was committed while nobody listened. While the connection is down,
 * reads go to the primary (CatalogReads.feedIsLive).
 */
export function followCatalogVersions(primaryUrl: string, primary: Db, reads: CatalogReads, logger: Logger): Promise<Listener> {
  return listenForNotifications({
    url: primaryUrl,
    channel: CHANNEL,
    logger,
    onNotification: (payload) => {
      const version = Number(payload);
      if (Number.isSafeInteger(version)) reads.wrote(version);
    },
    onListening: async () => {
      reads.wrote(await readCatalogVersion(primary));
      reads.feedIsLive(true);
    },
    onLost: () => reads.feedIsLive(false),
  });
}
