import { describe, expect, it } from '@jest/globals';
import { ConfigError, parseConfig } from '@acs/config';
import { launcherConfigSchema } from '@acs/launcher';
import { embeddedConfig } from '../src/embedded-configs.js';

const SECRET = 'launcher-test-internal-secret-0123456789';
const PEER = 'launcher-test-device-to-catalog-key-0123456789';
const behindGateway = {
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'silent',
  DATA_DIR: '/tmp/acs-launcher-test',
  DATABASE_URL: undefined,
  INTERNAL_SECRET: SECRET,
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig('npm start', launcherConfigSchema, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => `${p.variable}: ${p.expected}`);
    throw err;
  }
  return [];
}

describe("npm start reads each service variable through that service's own schema", () => {
  it('passes a variable only a service declares to that service, parsed by its schema', () => {
    const config = launcherConfigSchema.parse({
      CATALOG_TIMEOUT_MS: '750',
      DB_POOL_SIZE: '3',
      PROCESSED_EVENTS_RETENTION_DAYS: '7',
      UPSTREAM_CONNECTIONS: '5',
    });
    expect(
      embeddedConfig('device', config.env, { ...behindGateway, CATALOG_URL: 'http://127.0.0.1:1', CATALOG_PEER_SECRET: PEER })
        .CATALOG_TIMEOUT_MS,
    ).toBe(750);
    expect(embeddedConfig('catalog', config.env, { ...behindGateway, PEER_INTERNAL_SECRET: PEER }).DB_POOL_SIZE).toBe(3);
    expect(embeddedConfig('identity', config.env, behindGateway).PROCESSED_EVENTS_RETENTION_DAYS).toBe(7);
    const gateway = embeddedConfig('gateway', config.env, {
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS_PORT: 'off',
      LOG_LEVEL: 'silent',
      INTERNAL_SECRET: undefined,
      INTERNAL_SECRET_KEYS: SECRET,
      INTERNAL_SECRET_IDENTITY: undefined,
      INTERNAL_SECRET_CATALOG: undefined,
      INTERNAL_SECRET_DEVICE: undefined,
      INTERNAL_SECRET_BILLING: undefined,
      INTERNAL_SECRET_WEBHOOKS: undefined,
      KEYS_URL: 'http://127.0.0.1:1',
      IDENTITY_URL: undefined,
      CATALOG_URL: undefined,
      DEVICE_URL: undefined,
      BILLING_URL: undefined,
      WEBHOOKS_URL: undefined,
    });
    expect(gateway.UPSTREAM_CONNECTIONS).toBe(5);
    expect(gateway.METRICS_PORT).toBeNull();
  });

  it("lets the launcher's settings win over the environment: loopback, free port, its own database, the wiring", () => {
    const config = launcherConfigSchema.parse({
      PORT: '9999',
      HOST: '0.0.0.0',
      CATALOG_URL: 'http://elsewhere:1',
      DATABASE_URL: 'postgres://db/acs',
    });
    expect(config.PORT).toBe(9999);
    const device = embeddedConfig('device', config.env, {
      ...behindGateway,
      DATABASE_URL: 'postgres://db/acs_device',
      CATALOG_URL: 'http://127.0.0.1:4000',
      CATALOG_PEER_SECRET: PEER,
    });
    expect(device).toMatchObject({
      HOST: '127.0.0.1',
      PORT: 0,
      DATABASE_URL: 'postgres://db/acs_device',
      CATALOG_URL: 'http://127.0.0.1:4000',
      INTERNAL_SECRET: SECRET,
    });
    // An undefined setting removes the variable: the embedded mode's services use PGlite whatever DATABASE_URL says.
    expect(embeddedConfig('catalog', config.env, { ...behindGateway, PEER_INTERNAL_SECRET: PEER }).DATABASE_URL).toBeUndefined();
  });

  it('refuses a bad service variable before anything starts, naming it once even where two processes read it', () => {
    const problems = problemsOf({
      KEYS_PER_USER: 'many',
      CATALOG_TIMEOUT_MS: '10',
      TRUSTED_PROXIES: 'not-an-address',
      BILLING_PERIOD_SECONDS_MONTHLY: '0',
    });
    expect(problems.filter((p) => p.startsWith('KEYS_PER_USER: '))).toHaveLength(1);
    expect(problems).toContain('CATALOG_TIMEOUT_MS: expected at least 50');
    expect(problems).toContain('BILLING_PERIOD_SECONDS_MONTHLY: expected at least 1');
    // The gateway and the dashboard both read TRUSTED_PROXIES.
    expect(problems.filter((p) => p.startsWith('TRUSTED_PROXIES: '))).toEqual([
      'TRUSTED_PROXIES: expected comma-separated IP addresses or CIDR ranges, e.g. 10.0.0.0/8,fd00::/8',
    ]);
    expect(problems).toHaveLength(4);
  });

  it("does not ask for what it provides itself (upstream URLs, the dashboard's key, the secrets), and checks its own variables", () => {
    expect(problemsOf({})).toEqual([]);
    expect(problemsOf({ PORT: 'x', METRICS_PORT: 'no', INTERNAL_SECRET: 'short', SESSION_SECRET: 'short' })).toEqual([
      'PORT: expected a TCP port number',
      'METRICS_PORT: expected a TCP port number, or off',
      'INTERNAL_SECRET: expected at least 32 characters',
      'SESSION_SECRET: expected at least 32 characters',
    ]);
  });

  it('checks pairs that belong together', () => {
    expect(problemsOf({ SEED_API_KEY: 'acs_live_AAAAAAAAAAAAAAAAAAAAAAAA' })).toEqual([
      'SEED_API_SECRET: SEED_API_SECRET is required when SEED_API_KEY is set',
    ]);
    expect(problemsOf({ SEED_ADMIN_EMAIL: 'admin@example.test' })).toEqual([
      'SEED_ADMIN_PASSWORD: SEED_ADMIN_EMAIL and SEED_ADMIN_PASSWORD go together',
    ]);
  });
});
