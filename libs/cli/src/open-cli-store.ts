import { z } from 'zod';
import { createMemoryCache, createSharedCache, type Cache } from '@acs/cache';
import { parseConfig, postgresUrl, redisFields, redisTarget, serviceDatabaseUrl, type Env, type RedisSettings } from '@acs/config';
import { makeDataDirPrivate, openServiceDatabase, runningPid, type Db } from '@acs/db';
import { createLogger, type Logger } from '@acs/logger';
import { connectSystemSocket } from './system-socket/client.js';

export interface CliStoreOptions<E extends z.ZodRawShape> {
  /** The service whose database the CLI opens, e.g. `keys`: reads KEYS_DATABASE_URL, names the PGlite folder. */
  service: string;
  /** How the CLI is called in messages, e.g. `keys cli`. */
  cli: string;
  migrationsDir: string;
  /** Writes through to the gateway's Redis (REDIS_URL or REDIS_CLUSTER_NODES, REDIS_PREFIX); without it the cache is this process's own. */
  sharedCache: boolean;
  /**
   * Other services whose databases the CLI may read (never migrate), e.g. `identity` for the keys
   * CLI's owner e-mails: found like its own (`<PEER>_DATABASE_URL`, DATABASE_URL's server, DATA_DIR).
   */
  peers?: readonly string[];
  /** Further variables of the service the CLI needs (e.g. KEY_PREFIX), parsed with the rest. */
  env?: E;
  poolSize?: number;
  /** Where the variables come from (default: process.env). */
  environment?: Env;
}

export interface CliStore<T> {
  db: Db;
  cache: Cache;
  logger: Logger;
  env: T;
  /** A PostgreSQL database without REDIS_URL: a running system may cache records this process cannot reach. */
  cacheNotShared: boolean;
  /** A peer's database (one of `peers`), opened on first use and closed with the store; it rejects when unreachable. */
  peerDb(service: string): Promise<Db>;
  close(): Promise<void>;
}

/** A store without what every store carries the same way (its logger and variables). */
type StoreConnection = Omit<CliStore<never>, 'logger' | 'env'>;

/**
 * A service's store as its CLI opens it, the same way for every CLI: `<SERVICE>_DATABASE_URL` as
 * is, else the service's database on DATABASE_URL's server (as `npm start` names it), else the
 * embedded database under DATA_DIR: through the running system's socket while `npm start` runs
 * there (its database and its cache, so a change applies at once), else opened here. Migrated.
 */
export async function openCliStore<E extends z.ZodRawShape = Record<never, never>>(
  options: CliStoreOptions<E>,
): Promise<CliStore<z.infer<z.ZodObject<E>>>> {
  const env = parseConfig(options.cli, cliStoreSchema(options), options.environment) as Record<string, unknown>;
  const url = databaseUrlOf(env, options.service);
  const dataDir = env.DATA_DIR as string;
  const logger = createLogger({ name: options.cli.replace(/\s+/g, '-'), level: 'warn' });
  // PGlite is single-process: a running system owns the files, so the CLI asks it instead.
  const systemPid = url ? null : await runningPid(dataDir);
  const connection =
    systemPid !== null ? await throughRunningSystem(options, dataDir, systemPid) : await openHere(options, env, url, dataDir, logger);
  return { ...connection, logger, env: env as z.infer<z.ZodObject<E>> };
}

/** The variables a CLI reads: the database URLs of its service and peers, DATA_DIR, Redis when shared, and its own. */
function cliStoreSchema(options: CliStoreOptions<z.ZodRawShape>): z.ZodType {
  const services = [options.service, ...(options.peers ?? [])];
  return z.object({
    ...Object.fromEntries(services.map((service) => [ownUrlVariable(service), postgresUrl().optional()])),
    DATABASE_URL: postgresUrl().optional(),
    DATA_DIR: z.string().default('./.data'),
    ...(options.sharedCache ? redisFields() : {}),
    ...options.env,
  });
}

/** The running system's database and cache, over its socket. */
async function throughRunningSystem(options: CliStoreOptions<z.ZodRawShape>, dataDir: string, pid: number): Promise<StoreConnection> {
  const system = await connectSystemSocket(dataDir, pid);
  return {
    db: system.db(options.service),
    cache: system.cache,
    cacheNotShared: false,
    peerDb: async (service) => system.db(peerOf(options, service)),
    close: system.close,
  };
}

/** The service's database (migrated) and cache opened in this process; peers on first use. */
async function openHere(
  options: CliStoreOptions<z.ZodRawShape>,
  env: Record<string, unknown>,
  url: string | undefined,
  dataDir: string,
  logger: Logger,
): Promise<StoreConnection> {
  const redis = options.sharedCache ? redisTarget(options.cli, env as RedisSettings) : undefined;
  const cache = redis ? createSharedCache(redis, { keyPrefix: env.REDIS_PREFIX as string, logger }) : createMemoryCache();
  let db: Db;
  try {
    if (!url) await makeDataDirPrivate(dataDir, logger);
    db = await openServiceDatabase({
      service: options.service,
      url,
      dataDir,
      migrationsDir: options.migrationsDir,
      logger,
      ...(options.poolSize ? { poolSize: options.poolSize } : {}),
    });
  } catch (err) {
    await cache.close();
    throw err;
  }
  const peers = new PeerDatabases(options, env, url, dataDir, logger);
  return {
    db,
    cache,
    cacheNotShared: url !== undefined && !redis,
    peerDb: async (service) => peers.open(service),
    close: async () => {
      await peers.close();
      await db.close();
      await cache.close();
    },
  };
}

/** The peers' databases a CLI opened here: each on first use, never migrated, closed with the store. */
class PeerDatabases {
  private readonly opened = new Map<string, Promise<Db>>();

  constructor(
    private readonly options: CliStoreOptions<z.ZodRawShape>,
    private readonly env: Record<string, unknown>,
    private readonly url: string | undefined,
    private readonly dataDir: string,
    private readonly logger: Logger,
  ) {}

  open(service: string): Promise<Db> {
    let opened = this.opened.get(peerOf(this.options, service));
    if (opened === undefined) {
      const peerUrl = databaseUrlOf(this.env, service);
      // A CLI on PostgreSQL never falls back to an embedded folder for its peer: that would be another, empty system.
      if (this.url && !peerUrl) throw new Error(`${ownUrlVariable(service)} (or DATABASE_URL) is not set`);
      opened = openServiceDatabase({ service, url: peerUrl, dataDir: this.dataDir, migrationsDir: null, logger: this.logger, poolSize: 1 });
      this.opened.set(service, opened);
    }
    return opened;
  }

  async close(): Promise<void> {
    for (const opened of this.opened.values()) await opened.then((peer) => peer.close()).catch(() => {});
  }
}

const ownUrlVariable = (service: string): string => `${service.toUpperCase()}_DATABASE_URL`;

/** `<SERVICE>_DATABASE_URL` as is, else the service's database on DATABASE_URL's server, else none (embedded). */
function databaseUrlOf(env: Record<string, unknown>, service: string): string | undefined {
  const rootUrl = env.DATABASE_URL as string | undefined;
  return (env[ownUrlVariable(service)] as string | undefined) ?? (rootUrl ? serviceDatabaseUrl(rootUrl, service) : undefined);
}

function peerOf(options: CliStoreOptions<z.ZodRawShape>, service: string): string {
  if (!options.peers?.includes(service)) throw new Error(`${options.cli} does not read the ${service} database`);
  return service;
}
