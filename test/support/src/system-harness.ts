import { Client } from 'pg';
import { createLogger } from '@acs/logger';
import { deleteClusterKeys, deleteRedisKeys, testClusterNodesText, testServerUrl, uniqueName } from '@acs/testing';
import { launcherConfigSchema, startSystem, type RunningSystem } from '@acs/launcher';

const SEED_KEY = 'acs_test_E2eSeedKey0000000000000001';
const SEED_SECRET = 'e2e-seed-secret-that-is-long-enough-000000';

export interface SystemUnderTest {
  system: RunningSystem;
  url: string;
  redisPrefix: string;
  env: Record<string, string>;
  seed: { key: string; secret: string };
  call(method: string, path: string, auth: { key: string; secret: string } | null, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  /** Reach PostgreSQL through this address (a fault proxy's URL) instead; database names stay the harness's own. */
  databaseVia?: string;
  /** On the test Redis Cluster (REDIS_CLUSTER_NODES, scripts/start-redis-cluster.sh) instead of the single Redis. */
  redisCluster?: boolean;
}

/** The whole platform as `npm start` runs it with DATABASE_URL and REDIS_URL (or REDIS_CLUSTER_NODES) set, on fresh names. */
export async function startSystemUnderTest(overrides: Record<string, string> = {}, options: HarnessOptions = {}): Promise<SystemUnderTest> {
  const base = uniqueName('acs_e2e');
  const serverUrl = new URL(testServerUrl('DATABASE_URL'));
  serverUrl.pathname = `/${base}`;
  if (options.databaseVia) {
    const via = new URL(options.databaseVia);
    serverUrl.hostname = via.hostname;
    serverUrl.port = via.port;
  }
  const redisPrefix = `${base}:`;
  const redis: Record<string, string> = options.redisCluster
    ? { REDIS_CLUSTER_NODES: testClusterNodesText() }
    : { REDIS_URL: testServerUrl('REDIS_URL') };
  const config = launcherConfigSchema.parse({
    PORT: '0',
    DASHBOARD_PORT: '0',
    DATABASE_URL: serverUrl.toString(),
    ...redis,
    REDIS_PREFIX: redisPrefix,
    INTERNAL_SECRET: 'e2e-internal-secret-0123456789abcdef',
    SEED_API_KEY: SEED_KEY,
    SEED_API_SECRET: SEED_SECRET,
    SEED_API_SCOPES: 'read:devices auth:login',
    BCRYPT_COST: '4',
    // Every test client is 127.0.0.1: a file registers more accounts than one address may (test/e2e/sign-in-protection tests the limit).
    REGISTRATION_MAX_PER_ADDRESS: '100000',
    ...overrides,
  });
  const system = await startSystem(config, createLogger({ name: 'e2e', level: 'silent' }));
  return {
    system,
    url: system.gatewayUrl,
    redisPrefix,
    env: {
      DATABASE_URL: serverUrl.toString(),
      ...redis,
      REDIS_PREFIX: redisPrefix,
      INTERNAL_SECRET: 'e2e-internal-secret-0123456789abcdef',
    },
    seed: { key: SEED_KEY, secret: SEED_SECRET },
    call(method, path, auth, init = {}) {
      const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
      if (auth) Object.assign(headers, { 'x-api-key': auth.key, 'x-api-secret': auth.secret });
      return fetch(system.gatewayUrl + path, { ...init, method, headers });
    },
    async stop() {
      await system.stop();
      await (options.redisCluster ? deleteClusterKeys(redisPrefix) : deleteRedisKeys(redisPrefix));
      const admin = new Client({ connectionString: testServerUrl('DATABASE_URL') });
      await admin.connect();
      for (const service of ['keys', 'identity', 'catalog', 'device', 'billing', 'webhooks'])
        await admin.query(`DROP DATABASE IF EXISTS "${base}_${service}" WITH (FORCE)`);
      await admin.end();
    },
  };
}
