import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';

/**
 * The Redis Cluster the cluster tests run on: REDIS_TEST_CLUSTER_NODES (`host:port,...`), by default
 * the one scripts/start-redis-cluster.sh starts on 127.0.0.1:7101-7106 (`.ci/run` starts it; a
 * developer runs the script once). A cluster that does not answer fails the tests, never skips them.
 */
const DEFAULT_CLUSTER_NODES = '127.0.0.1:7101,127.0.0.1:7102,127.0.0.1:7103,127.0.0.1:7104,127.0.0.1:7105,127.0.0.1:7106';
const SCRIPT = fileURLToPath(new URL('../../../scripts/start-redis-cluster.sh', import.meta.url));
const run = promisify(execFile);

export interface ClusterNode {
  host: string;
  port: number;
}

/** REDIS_CLUSTER_NODES' value for the processes under test. */
export function testClusterNodesText(): string {
  const value = process.env.REDIS_TEST_CLUSTER_NODES;
  return value && value.length > 0 ? value : DEFAULT_CLUSTER_NODES;
}

export function testClusterNodes(): ClusterNode[] {
  return testClusterNodesText()
    .split(',')
    .map((entry) => {
      const [host = '', port = ''] = entry.trim().split(':');
      return { host, port: Number(port) };
    });
}

/** A client for looking at and cleaning up what the code under test wrote (no prefix). */
export function rawClusterClient(): Cluster {
  return new Cluster(testClusterNodes(), { scaleReads: 'master', redisOptions: { connectTimeout: 2_000 } });
}

/**
 * scripts/start-redis-cluster.sh: leaves a healthy cluster alone, starts a node a fault test
 * stopped (it rejoins as a replica), recreates a broken cluster. Prints what it did.
 */
export async function ensureTestCluster(): Promise<string> {
  const { stdout } = await run('bash', [SCRIPT], { timeout: 90_000 });
  return stdout;
}

/** Removes every key under `prefix` from every primary (keys of different slots cannot share one DEL). */
export async function deleteClusterKeys(prefix: string): Promise<void> {
  const cluster = rawClusterClient();
  try {
    await new Promise<void>((resolve, reject) => {
      if (cluster.status === 'ready') resolve();
      cluster.once('ready', resolve);
      cluster.once('error', reject);
    });
    for (const node of cluster.nodes('master')) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        for (const key of keys) await node.del(key);
        cursor = next;
      } while (cursor !== '0');
    }
  } finally {
    cluster.disconnect();
  }
}

/** One node, directly (no redirection): for killing and inspecting it. */
export function clusterNodeClient(node: ClusterNode): Redis {
  return new Redis({ host: node.host, port: node.port, maxRetriesPerRequest: 1, connectTimeout: 1_000, lazyConnect: true });
}
