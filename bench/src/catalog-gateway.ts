import { keysBusEnv } from './bench-options.js';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { testServerUrl } from '@acs/testing';
import { credentialsIn } from './gateway-setup.js';
import { startProcess, type ServiceProcess } from './processes.js';
import type { ImportTarget } from './catalog-import.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface GatewayForCatalog {
  /** Imports through the gateway: an application key with write:devices and an Admin's JWT. */
  target: ImportTarget;
  stop(): Promise<void>;
}

/** What the catalog import through the gateway presents: an application key and an Admin's JWT. */
interface AdminCredentials {
  key: string;
  secret: string;
  token: string;
}

/**
 * The gateway in front of an already running catalog, with the keys and identity services it
 * needs (own databases `<base>_keys`, `<base>_identity` and Redis prefix `<base>:`, dropped by stop()).
 * An operator's steps: a key from the keys CLI, a user who registers and logs in, made Admin with
 * the users CLI.
 */
export async function startGatewayFor(catalog: ServiceProcess, base: string, internalSecret: string): Promise<GatewayForCatalog> {
  const started: ServiceProcess[] = [];
  // Identity keeps its signing key under DATA_DIR: a folder of its own, not the working directory.
  const dataDir = mkdtempSync(join(tmpdir(), 'catalog-bench-identity-'));
  const stop = async (): Promise<void> => {
    for (const p of started.reverse()) await p.stop();
    rmSync(dataDir, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: testServerUrl('DATABASE_URL') });
    await admin.connect();
    for (const service of ['keys', 'identity']) await admin.query(`DROP DATABASE IF EXISTS "${base}_${service}" WITH (FORCE)`);
    await admin.end();
  };
  try {
    const gateway = await startServices(catalog, base, internalSecret, dataDir, started);
    const { key, secret, token } = await adminCredentials(gateway.url, base);
    return {
      target: {
        label: 'via gateway',
        url: gateway.url,
        headers: () => ({ 'x-api-key': key, 'x-api-secret': secret, authorization: `Bearer ${token}` }),
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The database `<base>_<service>` on DATABASE_URL's server. */
function serviceDbUrl(base: string, service: string): string {
  const url = new URL(testServerUrl('DATABASE_URL'));
  url.pathname = `/${base}_${service}`;
  return url.toString();
}

/** The Redis the services share, under the prefix `<base>:`. */
function redisEnv(base: string): { REDIS_URL: string; REDIS_PREFIX: string } {
  return { REDIS_URL: testServerUrl('REDIS_URL'), REDIS_PREFIX: `${base}:` };
}

/** Keys, identity and the gateway, each pushed onto `started` as soon as it runs (so stop() finds it); the gateway. */
async function startServices(
  catalog: ServiceProcess,
  base: string,
  internalSecret: string,
  dataDir: string,
  started: ServiceProcess[],
): Promise<ServiceProcess> {
  const common = { INTERNAL_SECRET: internalSecret, LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...redisEnv(base) };
  const keys = await startProcess('keys', 'services/keys/dist/main.js', {
    ...common,
    ...keysBusEnv(base),
    DATABASE_URL: serviceDbUrl(base, 'keys'),
  });
  started.push(keys);
  // bcrypt cost 10: one registration and one login, not what is measured.
  const identity = await startProcess('identity', 'services/identity/dist/main.js', {
    ...common,
    DATABASE_URL: serviceDbUrl(base, 'identity'),
    DATA_DIR: dataDir,
    BCRYPT_COST: '10',
  });
  started.push(identity);
  const gateway = await startProcess('gateway', 'gateway/dist/main.js', {
    ...common,
    METRICS_PORT: '0',
    KEYS_URL: keys.url,
    IDENTITY_URL: identity.url,
    CATALOG_URL: catalog.url,
  });
  started.push(gateway);
  return gateway;
}

/** An application key from the keys CLI, and the JWT of a user who registers, is made Admin with the users CLI and logs in. */
async function adminCredentials(gatewayUrl: string, base: string): Promise<AdminCredentials> {
  const cliEnv = { PATH: process.env.PATH ?? '', ...redisEnv(base) };
  const keyOut = execFileSync(
    process.execPath,
    [`${ROOT}services/keys/dist/cli.js`, 'create', '--scopes', 'write:devices auth:login auth:register', '--name', 'catalog bench'],
    { env: { ...cliEnv, KEYS_DATABASE_URL: serviceDbUrl(base, 'keys') }, encoding: 'utf8' },
  );
  const { key, secret } = credentialsIn(keyOut);
  const email = `catalog-bench-${randomBytes(4).toString('hex')}@example.com`;
  const password = `bench-${randomBytes(12).toString('hex')}`;
  const post = (path: string, body: unknown): Promise<Response> =>
    fetch(gatewayUrl + path, {
      method: 'POST',
      headers: { 'x-api-key': key, 'x-api-secret': secret, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const registered = await post('/api/Users/Register', { email, password, firstName: 'Bench', lastName: 'Admin' });
  if (!registered.ok) throw new Error(`register answered ${registered.status}`);
  execFileSync(process.execPath, [`${ROOT}services/identity/dist/cli.js`, 'set-role', '--email', email, '--role', 'admin'], {
    env: { ...cliEnv, IDENTITY_DATABASE_URL: serviceDbUrl(base, 'identity') },
    encoding: 'utf8',
  });
  const login = await post('/api/Users/Login', { email, password });
  if (!login.ok) throw new Error(`login answered ${login.status}`);
  const { token } = (await login.json()) as { token: string };
  return { key, secret, token };
}
