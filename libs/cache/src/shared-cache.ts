import type { Attributes } from '@opentelemetry/api';
import type { Logger } from '@acs/logger';
import type { Cache } from './cache.js';
import { createRedisCache } from './redis-cache.js';
import { createRedisClusterCache, redisClusterAttributes, type ClusterNodeAddress } from './redis-cluster-cache.js';
import { redisAttributes } from './traced-command.js';

/** Where the shared cache lives: one Redis (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES); @acs/config's redisTarget. */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; nodes: readonly ClusterNodeAddress[]; username?: string; password?: string; tls: boolean };

/** The cache every replica of the gateway, keys and identity shares, on whichever Redis the configuration names. */
export function createSharedCache(target: RedisTarget, options: { keyPrefix?: string; logger?: Logger }): Cache {
  if (target.kind === 'single') return createRedisCache({ url: target.url, ...options });
  return createRedisClusterCache({
    nodes: target.nodes,
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    tls: target.tls,
    ...options,
  });
}

/** The span attributes of the configured Redis or Redis Cluster; null for the in-process cache. */
export function redisServerAttributes(settings: {
  REDIS_URL?: string | undefined;
  REDIS_CLUSTER_NODES?: readonly ClusterNodeAddress[] | undefined;
}): Attributes | null {
  if (settings.REDIS_URL) return redisAttributes(settings.REDIS_URL);
  if (settings.REDIS_CLUSTER_NODES) return redisClusterAttributes(settings.REDIS_CLUSTER_NODES);
  return null;
}
