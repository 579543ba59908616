import { Cluster } from 'ioredis';
import type { Attributes } from '@opentelemetry/api';
import { markDependencyUnavailable } from '@acs/errors';
import type { Logger } from '@acs/logger';
import { ATTR } from '@acs/tracing';
import type { Cache, CacheScript } from './cache.js';
import { clusterRequestReads } from './cluster-request-reads.js';
import { logConnectionEvents } from './connection-log.js';
import { INCR_WITH_TTL_LUA, SET_IF_NEWER_LUA } from './redis-scripts.js';
import type { RespReply } from './resp-reader.js';
import { closeClient, sharedCacheMethods, traceCacheMethods } from './ioredis-commands.js';
import { assertTtlSeconds, assertVersion } from './validation.js';
import { COMMAND_TIMEOUT_MS, CONNECT_TIMEOUT_MS, reconnectDelay, type CacheScripts } from './client-bounds.js';

/** One node of a Redis Cluster the client starts from; it learns the others from the cluster. */
export interface ClusterNodeAddress {
  host: string;
  port: number;
}

export interface RedisClusterCacheOptions {
  /** Some or all of the cluster's nodes (REDIS_CLUSTER_NODES). */
  nodes: readonly ClusterNodeAddress[];
  /** AUTH on every node (an ACL user, or the default user's password). */
  username?: string;
  password?: string;
  /** TLS to every node. */
  tls?: boolean;
  /** Prepended to every key, script KEYS included. Must not contain `{`: the first `{...}` of a key is its hash tag. */
  keyPrefix?: string;
  logger?: Logger;
}

/*
 * Fail closed, fast, as the single-node client (redis-cache.ts), within what a cluster needs:
 * - a command whose node is gone ("Connection is closed", a primary that died) is retried every
 *   RETRY_DELAY_MS while the client reloads the slot map, at most MAX_REDIRECTIONS times: a blip
 *   is ridden out, a failover (seconds) rejects within about a second (503, or the gateway asks
 *   the owning services);
 * - CLUSTERDOWN (the slot has no primary yet) and TRYAGAIN are retried the same way;
 * - while the client connects, commands wait for it; when no node it was given answers, they are
 *   rejected after that attempt (connectTimeout) rather than waiting for a cluster that may not come back.
 * Reads go to primaries only (scaleReads 'master'): a replica may not have a write yet, and a change
 * must be seen by the very next request.
 */
const RETRY_DELAY_MS = 100;
const MAX_REDIRECTIONS = 6;
/**
 * How long a write-through waits for the primary's replica to confirm it (WAIT). Replication is
 * asynchronous: a primary that dies right after acknowledging a write may take it along, and the
 * replica that takes over would then serve the old record (a revoked key working again). Waiting
 * for one replica closes that window (on loopback or in one zone a replica answers in well under
 * a millisecond); a primary without a connected replica (its replica is the one that failed) has
 * nothing to lose a write to, so its writes pass after this wait.
 */
const REPLICA_WAIT_MS = 50;

type ScriptedCluster = Cluster & CacheScripts;
type PipelineEntry = [error: Error | null, result: unknown];
type PipelineReply = PipelineEntry[] | null;

const TRACED_AS = {
  get: 'GET',
  mget: 'GET',
  set: 'SET',
  del: 'DEL',
  setIfNewer: 'EVALSHA',
  getVersioned: 'GET',
  mgetVersioned: 'GET',
  incrWithTtl: 'EVALSHA',
  evalScript: 'EVALSHA',
  setIfAbsentOrGet: 'SET',
} as const;

/** The span attributes of a cluster: the first node it was given (never a password, key or value). */
export function redisClusterAttributes(nodes: readonly ClusterNodeAddress[]): Attributes {
  const first = nodes[0];
  return {
    [ATTR.dbSystem]: 'redis',
    [ATTR.dbNamespace]: '0',
    ...(first ? { [ATTR.serverAddress]: first.host, [ATTR.serverPort]: first.port } : {}),
  };
}

/**
 * The result of a write-through sent with WAIT and ROLE in one pipeline to the key's primary:
 * the write's own reply once a replica has it, or once the primary has no replica to lose it to.
 */
function confirmedWrite(replies: PipelineReply): unknown {
  if (replies === null || replies.length !== 3) throw new Error('redis cluster: no reply to a write');
  const [[writeError, written], [waitError, acknowledged], [roleError, role]] = replies as [PipelineEntry, PipelineEntry, PipelineEntry];
  if (writeError) throw writeError;
  if (waitError) throw waitError;
  if (typeof acknowledged === 'number' && acknowledged >= 1) return written;
  if (roleError) throw roleError;
  const replicas = Array.isArray(role) && role[0] === 'master' && Array.isArray(role[2]) ? role[2].length : -1;
  if (replicas === 0) return written;
  const err = new Error(`redis cluster: no replica confirmed the write within ${REPLICA_WAIT_MS} ms`);
  markDependencyUnavailable(err);
  throw err;
}

type ClusterPipeline = ReturnType<Cluster['pipeline']>;
type ScriptedPipeline = ClusterPipeline & {
  cacheSetIfNewer(key: string, version: number, value: string, ttlSeconds: number): ClusterPipeline;
};

/** A write's reply that means "not here, not now": the slot moved, or it has no primary yet. */
const REDIRECTED = /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN)\b/;

/**
 * A one-key write, then WAIT and ROLE in the same pipeline (so on the same connection to the same
 * primary). ioredis does not follow a redirection inside a pipeline whose other commands
 * succeeded (WAIT and ROLE always do), so a MOVED or a failover's CLUSTERDOWN is followed here:
 * the slot map is reloaded and the write sent again, at most MAX_REDIRECTIONS times. A refused
 * write changed nothing, so sending it again is safe.
 */
async function durably(cluster: Cluster, write: () => ClusterPipeline): Promise<unknown> {
  for (let attempt = 1; ; attempt++) {
    const replies = (await write().wait(1, REPLICA_WAIT_MS).role().exec()) as PipelineReply;
    const writeError = replies?.[0]?.[0];
    if (!writeError || !REDIRECTED.test(writeError.message) || attempt >= MAX_REDIRECTIONS) return confirmedWrite(replies);
    await new Promise<void>((resolve) => cluster.refreshSlotsCache(() => resolve()));
    if (!writeError.message.startsWith('MOVED')) await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
  }
}

function connectCluster(options: RedisClusterCacheOptions): ScriptedCluster {
  return new Cluster(
    options.nodes.map((node) => ({ host: node.host, port: node.port })),
    {
      enableAutoPipelining: true,
      scaleReads: 'master',
      enableReadyCheck: true,
      retryDelayOnFailover: RETRY_DELAY_MS,
      retryDelayOnClusterDown: RETRY_DELAY_MS,
      retryDelayOnTryAgain: RETRY_DELAY_MS,
      maxRedirections: MAX_REDIRECTIONS,
      clusterRetryStrategy: reconnectDelay,
      ...(options.keyPrefix ? { keyPrefix: options.keyPrefix } : {}),
      redisOptions: {
        connectTimeout: CONNECT_TIMEOUT_MS,
        commandTimeout: COMMAND_TIMEOUT_MS,
        maxRetriesPerRequest: 1,
        ...(options.username ? { username: options.username } : {}),
        ...(options.password ? { password: options.password } : {}),
        ...(options.tls ? { tls: {} } : {}),
      },
      scripts: {
        cacheSetIfNewer: { lua: SET_IF_NEWER_LUA, numberOfKeys: 1 },
        cacheIncrWithTtl: { lua: INCR_WITH_TTL_LUA, numberOfKeys: 1 },
      },
    },
  ) as ScriptedCluster;
}

/** The confirmed-writes client's connection trouble is the main client's too, which logs it once. */
function ignoreError(): void {}

/**
 * The Cache on a Redis Cluster (REDIS_CLUSTER_NODES). Every operation is on one key, or on keys the
 * caller put in one slot with a hash tag (evalScript); `mget` of keys in different slots is sent as
 * one GET per key, auto-pipelined, so it costs one round trip per primary it touches. Writes that
 * change a record (setIfNewer, del) wait for the replica (REPLICA_WAIT_MS) so a failover cannot
 * lose them. See docs/redis-cluster.md.
 */
export function createRedisClusterCache(options: RedisClusterCacheOptions): Cache {
  const { nodes, keyPrefix, logger } = options;
  if (nodes.length === 0) throw new Error('a Redis Cluster needs at least one node address');
  if (keyPrefix?.includes('{')) throw new Error('the Redis key prefix must not contain "{": it would become every key\'s hash tag');
  const cluster = connectCluster(options);
  // WAIT holds its connection until the replica answers (or REPLICA_WAIT_MS): the confirmed writes get
  // a connection of their own, so the gateway's reads never queue behind one.
  const confirmedWrites = connectCluster(options);
  logConnectionEvents(cluster, logger);
  confirmedWrites.on('error', ignoreError);

  function getOne(key: string): Promise<string | null> {
    return cluster.get(key);
  }

  // One GET per key: keys in different slots cannot share an MGET; auto-pipelining puts the GETs of
  // one turn for one primary into one write.
  function mgetRaw(keys: readonly string[]): Promise<(string | null)[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return Promise.all(keys.map(getOne));
  }

  let closing: Promise<void> | undefined;

  const cache: Cache = {
    ...sharedCacheMethods(cluster, mgetRaw),
    mget: mgetRaw,
    requestReads: clusterRequestReads(cluster),
    async del(key) {
      await durably(confirmedWrites, () => confirmedWrites.pipeline().del(key));
    },
    async setIfNewer(key, version, value, ttlSeconds) {
      assertVersion(version);
      assertTtlSeconds(ttlSeconds);
      const written = await durably(confirmedWrites, () =>
        (confirmedWrites.pipeline() as ScriptedPipeline).cacheSetIfNewer(key, version, value, ttlSeconds),
      );
      return written === 1;
    },
    // The keys must share a slot (a hash tag); Redis answers CROSSSLOT otherwise.
    evalScript(script: CacheScript, keys: readonly string[], args: readonly string[]): Promise<RespReply[]> {
      return (cluster.evalsha(script.sha, keys.length, ...keys, ...args) as Promise<RespReply[]>).catch((err: unknown) => {
        if (err instanceof Error && err.message.startsWith('NOSCRIPT'))
          return cluster.eval(script.source, keys.length, ...keys, ...args) as Promise<RespReply[]>;
        throw err;
      });
    },
    setIfAbsentOrGet(key: string, value: string, ttlMs: number): Promise<string | null> {
      return cluster.set(key, value, 'PX', ttlMs, 'NX', 'GET');
    },
    close() {
      closing ??= Promise.all([closeClient(cluster), closeClient(confirmedWrites)]).then(ignoreError);
      return closing;
    },
  };
  return traceCacheMethods(cache, redisClusterAttributes(nodes), TRACED_AS);
}
