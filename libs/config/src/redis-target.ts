import { ConfigError } from './parse-config.js';

/** Where the shared cache lives (the shape @acs/cache's createSharedCache takes). */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; nodes: { host: string; port: number }[]; username?: string; password?: string; tls: boolean };

/** The parsed fields of redisFields(). */
export interface RedisSettings {
  REDIS_URL?: string | undefined;
  REDIS_CLUSTER_NODES?: { host: string; port: number }[] | undefined;
  REDIS_CLUSTER_USERNAME?: string | undefined;
  REDIS_CLUSTER_PASSWORD?: string | undefined;
  REDIS_CLUSTER_TLS?: boolean | undefined;
  REDIS_PREFIX?: string | undefined;
}

const REQUIRED = 'required when the service runs alone (npm start runs the embedded mode); or REDIS_CLUSTER_NODES for a Redis Cluster';
const BOTH = 'set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster), not both';

/** The variables that cannot be combined; empty when the choice is clear. */
export function redisChoiceProblems(settings: Record<string, unknown>): { variable: string; expected: string }[] {
  const problems: { variable: string; expected: string }[] = [];
  if (settings.REDIS_URL !== undefined && settings.REDIS_CLUSTER_NODES !== undefined)
    problems.push({ variable: 'REDIS_CLUSTER_NODES', expected: BOTH });
  if (settings.REDIS_CLUSTER_NODES === undefined) {
    for (const variable of ['REDIS_CLUSTER_USERNAME', 'REDIS_CLUSTER_PASSWORD'])
      if (settings[variable] !== undefined) problems.push({ variable, expected: 'only with REDIS_CLUSTER_NODES' });
  }
  if (typeof settings.REDIS_PREFIX === 'string' && settings.REDIS_PREFIX.includes('{') && settings.REDIS_CLUSTER_NODES !== undefined)
    problems.push({ variable: 'REDIS_PREFIX', expected: 'must not contain "{" on a Redis Cluster (it would be every key\'s hash tag)' });
  return problems;
}

/**
 * The shared Redis a process was configured with; undefined when neither variable is set (the
 * embedded mode passes its cache in). Throws a ConfigError for a combination that makes no sense.
 */
export function redisTarget(service: string, settings: RedisSettings): RedisTarget | undefined {
  const problems = redisChoiceProblems(settings as Record<string, unknown>);
  if (problems.length > 0) throw new ConfigError(service, problems);
  if (settings.REDIS_URL !== undefined) return { kind: 'single', url: settings.REDIS_URL };
  if (settings.REDIS_CLUSTER_NODES === undefined) return undefined;
  return {
    kind: 'cluster',
    nodes: settings.REDIS_CLUSTER_NODES,
    ...(settings.REDIS_CLUSTER_USERNAME !== undefined ? { username: settings.REDIS_CLUSTER_USERNAME } : {}),
    ...(settings.REDIS_CLUSTER_PASSWORD !== undefined ? { password: settings.REDIS_CLUSTER_PASSWORD } : {}),
    tls: settings.REDIS_CLUSTER_TLS ?? false,
  };
}

/** For main.ts: the shared Redis is required when the process runs alone; a bad combination ends it like a bad variable. */
export function requireRedisWhenRunningAlone(service: string, settings: RedisSettings): RedisTarget {
  let target: RedisTarget | undefined;
  try {
    target = redisTarget(service, settings);
    if (target === undefined) throw new ConfigError(service, [{ variable: 'REDIS_URL', expected: REQUIRED }]);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  return target;
}
