import type { Cluster } from 'ioredis';
import { clusterNodeClient, rawClusterClient, type ClusterNode } from '@acs/testing';
import { startProcess, type ServiceProcess } from '../../bench/src/processes.js';
import type { SystemUnderTest } from '../e2e/system-harness.js';

// What the cluster tests share: a second gateway process on the same cluster, and a look at the
// cluster's own view (which primary holds a key, its replica, killing a node).

/** Another gateway *process* on the same Redis Cluster and services, as a scaled deployment runs it. */
export function startSecondGateway(sut: SystemUnderTest, env: Record<string, string> = {}): Promise<ServiceProcess> {
  return startProcess('second gateway', 'gateway/dist/main.js', {
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    METRICS_PORT: 'off',
    REDIS_CLUSTER_NODES: sut.env.REDIS_CLUSTER_NODES!,
    REDIS_PREFIX: sut.env.REDIS_PREFIX!,
    // The same per-service keys as the system's own gateway: each service verifies with its own.
    INTERNAL_SECRET_KEYS: sut.system.internalKeys.keys,
    INTERNAL_SECRET_IDENTITY: sut.system.internalKeys.identity,
    INTERNAL_SECRET_CATALOG: sut.system.internalKeys.catalog,
    INTERNAL_SECRET_DEVICE: sut.system.internalKeys.device,
    KEYS_URL: sut.system.keys.server.url,
    IDENTITY_URL: sut.system.identity.server.url,
    CATALOG_URL: sut.system.catalog.server.url,
    DEVICE_URL: sut.system.device.server.url,
    ...env,
  });
}

export interface ClusterView {
  raw: Cluster;
  /** The primary that serves a (full, prefixed) key's slot right now. */
  primaryOf(key: string): Promise<ClusterNode>;
  close(): void;
}

export function clusterView(): ClusterView {
  const raw = rawClusterClient();
  return {
    raw,
    async primaryOf(key) {
      const slot = (await raw.cluster('KEYSLOT', key)) as number;
      const ranges = (await raw.cluster('SLOTS')) as unknown as [number, number, [string, number]][];
      const range = ranges.find(([first, last]) => slot >= first && slot <= last);
      if (!range) throw new Error(`no primary serves slot ${slot}`);
      return { host: range[2][0], port: range[2][1] };
    },
    close: () => raw.disconnect(),
  };
}

/** Asks one node directly (no redirection). */
export async function onNode<T>(node: ClusterNode, ask: (client: ReturnType<typeof clusterNodeClient>) => Promise<T>): Promise<T> {
  const client = clusterNodeClient(node);
  try {
    await client.connect();
    return await ask(client);
  } finally {
    client.disconnect();
  }
}

/** The node's own process id (INFO server), for killing it as a crash would. */
export async function processIdOf(node: ClusterNode): Promise<number> {
  const info = await onNode(node, (client) => client.info('server'));
  const pid = /process_id:(\d+)/.exec(info)?.[1];
  if (!pid) throw new Error(`no process_id from ${node.host}:${node.port}`);
  return Number(pid);
}

/** The role the node reports: 'master' or 'slave' (and for a replica, whose). */
export async function roleOf(node: ClusterNode): Promise<{ role: string; primary?: ClusterNode }> {
  const role = (await onNode(node, (client) => client.role())) as unknown[];
  if (role[0] === 'slave') return { role: 'slave', primary: { host: String(role[1]), port: Number(role[2]) } };
  return { role: String(role[0]) };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
