import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { FlushedCounter, type CounterSeries, type Registry } from '@acs/metrics';
import { readCatalogVersion } from './catalog-version.js';

export interface ReadSource {
  db: Db;
  /** The catalog version of `db` when chosen: the answer's ETag is built from it. */
  version: number;
}

/**
 * Where catalog reads go. Without a replica, the primary. With CATALOG_READ_DATABASE_URL, the
 * streaming replica, unless it has not yet replayed the newest version this instance knows was
 * committed: then the primary (read-your-writes, with no wait). That version comes from this
 * instance's own imports and, for every instance, from the primary's NOTIFY on each bump
 * (migration 005, heard through catalog-version-feed.ts). While that feed is down the replica is
 * not trusted at all. The choice costs one read of the replica's one-row catalog_version. A
 * replica that fails to answer sends reads to the primary too, so a broken standby degrades to
 * the old behaviour instead of to 5xx. catalog_reads_total{source} counts where reads went.
 */
export class CatalogReads {
  private newestCommitted = 0;
  /** False while a replica's version feed is down: reads go to the primary. */
  private feedLive = true;
  private readonly fromReplica: CounterSeries<'source'> | undefined;
  private readonly fromPrimary: CounterSeries<'source'> | undefined;

  constructor(
    private readonly primary: Db,
    private readonly replica: Db | null,
    private readonly logger: Logger,
    metrics?: Registry,
  ) {
    if (metrics && replica) {
      const reads = new FlushedCounter({
        registry: metrics,
        name: 'catalog_reads_total',
        help: 'Catalog reads (GET /api/Dac) by the database that answered: the replica, or the primary while the replica lags or fails',
        labelNames: ['source'],
      });
      this.fromReplica = reads.series({ source: 'replica' });
      this.fromPrimary = reads.series({ source: 'primary' });
    }
  }

  /** A version committed on the primary (by this instance or, heard by NOTIFY, any other): reads must see it from now on. */
  wrote(version: number): void {
    this.newestCommitted = Math.max(this.newestCommitted, version);
  }

  /** The version feed is down (false) or listening again (true; the caller has read the primary's version by then). */
  feedIsLive(live: boolean): void {
    this.feedLive = live;
  }

  async source(): Promise<ReadSource> {
    if (this.replica && this.feedLive) {
      try {
        const version = await readCatalogVersion(this.replica);
        if (version >= this.newestCommitted) {
          this.fromReplica?.inc();
          return { db: this.replica, version };
        }
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'catalog read replica failed; reading from the primary');
      }
    }
    this.fromPrimary?.inc();
    const claimed = this.newestCommitted;
    const version = await readCatalogVersion(this.primary);
    // A NOTIFY is a hint anyone connected to the primary can send: what was known before this read began was
    // committed before it, so a claim above the primary's own version is false and is dropped (else one forged
    // notification would pin every read to the primary). A claim that arrived during the read is kept for the next.
    if (claimed > version && this.newestCommitted === claimed) this.newestCommitted = version;
    return { db: this.primary, version };
  }
}
