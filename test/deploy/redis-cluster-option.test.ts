import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { z } from 'zod';
import { parseConfig, redisFields, redisTarget } from '@acs/config';
import { COMPONENTS, readRepoFile } from './components.js';

// docker-compose.yml and k8s/ show the Redis Cluster option as comments (docs/redis-cluster.md).
// Comments are not checked by anything else: this keeps them in step with the code, so that an
// operator who uncomments them gets a configuration the processes accept.

const CACHE_USERS = ['gateway', 'keys', 'identity'] as const;
const schemaOf = (name: string) => COMPONENTS.find((component) => component.name === name)!.schema;
/** What every cache user reads of the shared Redis (each schema spreads redisFields; checked by name above). */
const redisSchema = z.object(redisFields());
const clusterTarget = (env: Record<string, string>) => redisTarget('test', parseConfig('test', redisSchema, env));
const CLUSTER_LINE = /^(\s*)# ((?:- )?.*REDIS_CLUSTER_.*|\s+valueFrom: .*REDIS_CLUSTER_.*)$/;

/** The commented REDIS_CLUSTER_* entries of a manifest's env list, uncommented and parsed. */
function commentedEnv(file: string): { name: string; value?: string; valueFrom?: { secretKeyRef: { key: string } } }[] {
  const lines = readRepoFile(file)
    .split('\n')
    .map((line) => CLUSTER_LINE.exec(line))
    .filter((match) => match !== null)
    .map((match) => `${match[1]}${match[2]}`);
  const indent = Math.min(...lines.map((line) => line.length - line.trimStart().length));
  return parse(lines.map((line) => line.slice(indent)).join('\n'));
}

describe('the Redis Cluster option in k8s/', () => {
  const secretKeys = new Set(
    readRepoFile('k8s/secret.example.yaml')
      .split('\n')
      .map((line) => /^\s*# (REDIS_CLUSTER_[A-Z_]+): /.exec(line)?.[1])
      .filter((name): name is string => name !== undefined),
  );

  it.each(CACHE_USERS)('%s.yaml: the commented entries are variables of its schema, from keys the Secret example shows', (name) => {
    const env = commentedEnv(`k8s/${name}.yaml`);
    expect(env.map((entry) => entry.name).sort()).toEqual(['REDIS_CLUSTER_NODES', 'REDIS_CLUSTER_PASSWORD', 'REDIS_CLUSTER_TLS']);
    const known = new Set(Object.keys(schemaOf(name).shape));
    for (const entry of env) {
      expect(known.has(entry.name)).toBe(true);
      if (entry.valueFrom) expect(secretKeys.has(entry.valueFrom.secretKeyRef.key)).toBe(true);
    }
  });

  it("the Secret example's node list is one the processes accept", () => {
    const line = readRepoFile('k8s/secret.example.yaml')
      .split('\n')
      .find((l) => l.includes('# REDIS_CLUSTER_NODES:'))!;
    const value = parse(line.replace(/^\s*# /, '')).REDIS_CLUSTER_NODES.replace(/<([^>]+)>/g, (_: string, what: string) =>
      what.replace(/[^a-z0-9]+/gi, '-'),
    );
    expect(clusterTarget({ REDIS_CLUSTER_NODES: value, REDIS_CLUSTER_PASSWORD: 'pw' })).toMatchObject({ kind: 'cluster', password: 'pw' });
  });
});

describe('the Redis Cluster option in docker-compose.yml', () => {
  it('names variables every cache user accepts, with a node list they parse', () => {
    const lines = readRepoFile('docker-compose.yml')
      .split('\n')
      .map((line) => /^#\s+(REDIS_CLUSTER_[A-Z_]+): (.*)$/.exec(line))
      .filter((match) => match !== null);
    expect(lines.map((match) => match[1])).toEqual(['REDIS_CLUSTER_NODES', 'REDIS_CLUSTER_USERNAME', 'REDIS_CLUSTER_PASSWORD']);
    for (const name of CACHE_USERS) {
      const known = new Set(Object.keys(schemaOf(name).shape));
      expect(lines.every((match) => known.has(match[1]!))).toBe(true);
    }
    expect(clusterTarget({ REDIS_CLUSTER_NODES: lines[0]![2]!, REDIS_CLUSTER_PASSWORD: 'pw' })).toMatchObject({
      kind: 'cluster',
      nodes: [
        { host: 'redis-node-0', port: 6379 },
        { host: 'redis-node-1', port: 6379 },
        { host: 'redis-node-2', port: 6379 },
      ],
    });
  });
});
