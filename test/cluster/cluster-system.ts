import type { Cluster } from 'ioredis';
import { clusterNodeClient, rawClusterClient, type ClusterNode } from '@acs/testing';

// What the cluster tests share (the second gateway process is test/e2e/second-gateway.ts): a look at the
// cluster's own view (which primary holds a key, its replica, killing a node).

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
