import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ConfigError, parseConfig, redisFields, redisTarget } from '@acs/config';

const schema = z.object(redisFields());
const target = (env: Record<string, string>) => redisTarget('svc', parseConfig('svc', schema, env));

describe('REDIS_URL or REDIS_CLUSTER_NODES', () => {
  it('reads one Redis from REDIS_URL', () => {
    expect(target({ REDIS_URL: 'redis://r:6379' })).toEqual({ kind: 'single', url: 'redis://r:6379' });
  });

  it('reads a cluster from host:port pairs, IPv6 in brackets, with its credentials and TLS', () => {
    expect(
      target({
        REDIS_CLUSTER_NODES: 'redis-0:7001, 10.0.0.2:7002,[fd00::3]:7003',
        REDIS_CLUSTER_USERNAME: 'gateway',
        REDIS_CLUSTER_PASSWORD: 'pw',
        REDIS_CLUSTER_TLS: 'true',
      }),
    ).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'redis-0', port: 7001 },
        { host: '10.0.0.2', port: 7002 },
        { host: 'fd00::3', port: 7003 },
      ],
      username: 'gateway',
      password: 'pw',
      tls: true,
    });
  });

  it('is undefined when neither is set (the embedded mode passes its own cache)', () => {
    expect(target({})).toBeUndefined();
  });

  it('refuses both at once, naming the two variables', () => {
    expect(() => target({ REDIS_URL: 'redis://r:6379', REDIS_CLUSTER_NODES: 'a:1' })).toThrow(ConfigError);
    expect(() => target({ REDIS_URL: 'redis://r:6379', REDIS_CLUSTER_NODES: 'a:1' })).toThrow(
      /REDIS_CLUSTER_NODES: set REDIS_URL \(one Redis\) or REDIS_CLUSTER_NODES \(a Redis Cluster\), not both/,
    );
  });

  it('refuses cluster credentials without a cluster, and a prefix with a brace on a cluster', () => {
    expect(() => target({ REDIS_URL: 'redis://r:6379', REDIS_CLUSTER_PASSWORD: 'pw' })).toThrow(/REDIS_CLUSTER_PASSWORD: only with/);
    expect(() => target({ REDIS_CLUSTER_NODES: 'a:1', REDIS_PREFIX: 'acs{1}:' })).toThrow(/REDIS_PREFIX: must not contain/);
  });

  it.each(['redis-0', 'redis-0:', ':7001', 'redis://a:7001', 'a:70000', 'a:0', ' , '])('refuses the node list %p', (nodes) => {
    expect(() => parseConfig('svc', schema, { REDIS_CLUSTER_NODES: nodes })).toThrow(
      /REDIS_CLUSTER_NODES: expected comma-separated host:port/,
    );
  });
});
