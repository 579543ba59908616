import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { readCatalogVersion } from './catalog-version.js';

export interface ReadSource {
  db: Db;
  /** The catalog version of `db` when chosen: the answer's ETag is built from it. */
  version: number;
}

/**
 * Where catalog reads go. Without a replica, the primary. With CATALOG_READ_DATABASE_URL, the
 * streaming replica, unless it has not yet replayed the newest version this instance wrote:
 * then the primary (read-your-writes after an import, with no wait). The choice costs one read of
 * the replica's one-row catalog_version. A replica that fails to answer sends reads to the
 * primary too, so a broken standby degrades to the old behaviour instead of to 5xx.
 */
export class CatalogReads {
  private newestWritten = 0;

  constructor(
    private readonly primary: Db,
    private readonly replica: Db | null,
    private readonly logger: Logger,
  ) {}

  /** After a write commits on the primary: reads must see at least this version from now on. */
  wrote(version: number): void {
    this.newestWritten = Math.max(this.newestWritten, version);
  }

  async source(): Promise<ReadSource> {
    if (this.replica) {
      try {
        const version = await readCatalogVersion(this.replica);
        if (version >= this.newestWritten) return { db: this.replica, version };
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'catalog read replica failed; reading from the primary');
      }
    }
    return { db: this.primary, version: await readCatalogVersion(this.primary) };
  }
}
