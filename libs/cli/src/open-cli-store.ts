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
  close(): Promise<void>;
}

/**
 * A service's store as its CLI opens it, the same way for every CLI: `<SERVICE>_DATABASE_URL` as
 * is, else the service's database on DATABASE_URL's server (as `npm start` names it), else the
 * embedded database under DATA_DIR: through the running system's socket while `npm start` runs
 * there (its database and its cache, so a change applies at once), else opened here. Migrated.
 */
export async function openCliStore<E extends z.ZodRawShape = Record<never, never>>(
  options: CliStoreOptions<E>,
): Promise<CliStore<z.infer<z.ZodObject<E>>>> {
  const ownUrl = `${options.service.toUpperCase()}_DATABASE_URL`;
  const schema = z.object({
    [ownUrl]: postgresUrl().optional(),
    DATABASE_URL: postgresUrl().optional(),
    DATA_DIR: z.string().default('./.data'),
    ...(options.sharedCache ? redisFields() : {}),
    ...options.env,
  });
  const env = parseConfig(options.cli, schema, options.environment) as Record<string, unknown>;
  const rootUrl = env.DATABASE_URL as string | undefined;
  const url = (env[ownUrl] as string | undefined) ?? (rootUrl ? serviceDatabaseUrl(rootUrl, options.service) : undefined);
  const dataDir = env.DATA_DIR as string;
  const logger = createLogger({ name: options.cli.replace(/\s+/g, '-'), level: 'warn' });
  // PGlite is single-process: a running system owns the files, so the CLI asks it instead.
  const systemPid = url ? null : await runningPid(dataDir);
  if (systemPid !== null) {
    const system = await connectSystemSocket(dataDir, systemPid);
    return {
      db: system.db(options.service),
      cache: system.cache,
      logger,
      env: env as z.infer<z.ZodObject<E>>,
      cacheNotShared: false,
      close: system.close,
    };
  }
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
  return {
    db,
    cache,
    logger,
    env: env as z.infer<z.ZodObject<E>>,
    cacheNotShared: url !== undefined && !redis,
    close: async () => {
      await db.close();
      await cache.close();
    },
  };
}
