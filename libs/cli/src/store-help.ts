/*
 * The parts of a service CLI's help and output that describe openCliStore (open-cli-store.ts), so
 * every CLI says the same about the variables it reads and about a change the gateway may not see.
 */

/** The `Environment:` lines of the variables openCliStore reads for this service, aligned; `extra` are the CLI's own. */
export function cliStoreEnvironment(service: string, sharedCache: boolean, extra: readonly [string, string][] = []): string {
  const rows: [string, string][] = [
    [`${service.toUpperCase()}_DATABASE_URL`, `the ${service} database, used as is`],
    ['DATABASE_URL', `the system's PostgreSQL server; the ${service} database is <name>_${service} (as npm start does)`],
    ...(sharedCache
      ? ([
          ['REDIS_URL', "the gateway's Redis, written through so changes apply at once"],
          ['REDIS_CLUSTER_NODES', "or a Redis Cluster's host:port,... (docs/redis-cluster.md)"],
          ['REDIS_PREFIX', 'Redis key prefix (default acs:)'],
        ] as [string, string][])
      : []),
    ['DATA_DIR', 'embedded mode data (default ./.data); works while npm start runs there'],
    ...extra,
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  return `Environment:\n${rows.map(([name, text]) => `  ${name.padEnd(width)}  ${text}`).join('\n')}\n`;
}

/** Printed when a change reached the database but not the gateway's Redis (CliStore.cacheNotShared). */
export function notWrittenThroughWarning(cachedWhat: string, ttlSeconds: number): string {
  return `Warning: REDIS_URL is not set, so the change is in the database only. A running gateway keeps its ${cachedWhat} until the entry expires (up to ${ttlSeconds / 3600} h): set REDIS_URL (and REDIS_PREFIX) to the gateway's Redis, or restart the system.`;
}
