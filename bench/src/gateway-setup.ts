import { keysBusEnv } from './bench-options.js';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { ServiceProcess } from './processes.js';
import { benchSigningKey, hasSession, withoutSession } from './session-free-token.js';

/*
 * One gateway under test with the keys and identity services of the same checkout (a baseline's Redis key
 * names or records may differ from this one's), its own databases and Redis prefix, and the credentials the
 * isolated scenarios use: an application key without limits, the same with limits, and a user token.
 */

export interface Credentials {
  key: string;
  secret: string;
}

export interface GatewaySetup {
  label: string;
  gateway: ServiceProcess;
  /** The setup's Redis key prefix (its records live under it). */
  redisPrefix: string;
  app: Credentials;
  /** null when the checkout has no per-key limits (before issue 16). */
  limited: Credentials | null;
  token: string;
  /**
   * The same user's token without a session (`sid`), as identity issued before issue 32: the session check's
   * cost is layer 1 + 2 with `token` against this. null where the checkout issues no sessions.
   */
  tokenWithoutSession: string | null;
  /** A key owned by the token's user, whose authorization record carries a plan quota it never reaches (issue 29). */
  owned: Credentials;
  /** A key with an IP allow-list of 5 ranges that admits the bench's address on its last one; null before issue 31. */
  allowListed: Credentials | null;
  /** Starts one more gateway process of this setup (same build, services, Redis and environment): --processes. */
  anotherGateway(): Promise<ServiceProcess>;
}

export interface SetupOptions {
  label: string;
  /** The checkout's root (this one, or a --baseline DIR), built. */
  root: string;
  /** Names its databases and Redis prefix. */
  tag: string;
  dbUrl: (name: string) => string;
  redisUrl: string;
  stubUrl: string;
  internalSecret: string;
  bcryptCost: number;
  start: (name: string, entry: string, env: Record<string, string>, nodeArgs?: string[]) => Promise<ServiceProcess>;
  nodeArgs: string[];
  /** Extra gateway environment (tracing). */
  gatewayEnv?: Record<string, string>;
}

const SCOPES = 'read:devices auth:register auth:login';
/** Generous enough that the bench never meets them: the scenarios measure the counting, not refusals. */
const LIMITS = '1000000/1s,1000000000/1d';
/** The bench's own address last, after IPv4 and IPv6 ranges it is not in: every range is compared. */
const ALLOW_LIST = '203.0.113.0/24,198.51.100.0/24,2001:db8::/32,10.0.0.0/8,127.0.0.1';

export async function startGatewaySetup(o: SetupOptions): Promise<GatewaySetup> {
  const prefix = `${o.tag}:`;
  const common = { INTERNAL_SECRET: o.internalSecret, LOG_LEVEL: 'warn', HOST: '127.0.0.1', REDIS_URL: o.redisUrl, REDIS_PREFIX: prefix };
  const keysDb = o.dbUrl(`${o.tag}_keys`);
  const keys = await o.start(`keys (${o.label})`, resolve(o.root, 'services/keys/dist/main.js'), {
    ...common,
    ...keysBusEnv(o.tag),
    DATABASE_URL: keysDb,
  });
  const signingKey = benchSigningKey();
  const identity = await o.start(`identity (${o.label})`, resolve(o.root, 'services/identity/dist/main.js'), {
    ...common,
    JWT_SIGNING_KEY: signingKey.jwk,
    DATABASE_URL: o.dbUrl(`${o.tag}_identity`),
    BCRYPT_COST: String(o.bcryptCost),
    LOGIN_MAX_FAILURES_PER_ADDRESS: '100000',
    LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS: '1000',
  });
  const gatewayEnv = {
    ...common,
    METRICS_PORT: '0',
    KEYS_URL: keys.url,
    IDENTITY_URL: identity.url,
    CATALOG_URL: o.stubUrl,
    DEVICE_URL: o.stubUrl,
    ...o.gatewayEnv,
  };
  const anotherGateway = (): Promise<ServiceProcess> =>
    o.start(`gateway (${o.label})`, resolve(o.root, 'gateway/dist/main.js'), gatewayEnv, o.nodeArgs);
  const gateway = await anotherGateway();
  const cli = keysCli(o.root, keysDb, o.redisUrl, prefix);
  const app = createKey(cli);
  const limited = keyWith(cli, (key) => ['set-limits', key, '--limits', LIMITS]);
  const allowListed = keyWith(cli, (key) => ['set-allow-list', key, '--ranges', ALLOW_LIST]);
  const token = await userToken(gateway.url, app);
  const userId = Number((JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string }).sub);
  const owned = createKey(cli, '--owner', String(userId));
  await withQuota(gateway.url, app, token, o.redisUrl, `${prefix}authz:{${userId}}`);
  const tokenWithoutSession = hasSession(token) ? await accepted(gateway.url, app, withoutSession(token, signingKey)) : null;
  return { label: o.label, gateway, redisPrefix: prefix, app, limited, token, tokenWithoutSession, owned, allowListed, anotherGateway };
}

type KeysCli = (args: string[]) => string;

/** Runs the checkout's keys CLI on the setup's keys database and Redis prefix; what it prints. */
function keysCli(root: string, keysDb: string, redisUrl: string, prefix: string): KeysCli {
  return (args) =>
    execFileSync(process.execPath, [resolve(root, 'services/keys/dist/cli.js'), ...args], {
      env: { PATH: process.env.PATH ?? '', KEYS_DATABASE_URL: keysDb, REDIS_URL: redisUrl, REDIS_PREFIX: prefix },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
}

/** The key and secret the keys CLI's `create` prints. */
export function credentialsIn(createOutput: string): Credentials {
  return { key: /X-Api-Key: +(\S+)/.exec(createOutput)![1]!, secret: /X-Api-Secret: +(\S+)/.exec(createOutput)![1]! };
}

function createKey(cli: KeysCli, ...extra: string[]): Credentials {
  return credentialsIn(cli(['create', '--scopes', SCOPES, '--name', 'bench app', ...extra]));
}

/** A new key changed by one more CLI command; null when the checkout's CLI refuses it (it predates that setting). */
function keyWith(cli: KeysCli, change: (key: string) => string[]): Credentials | null {
  const created = createKey(cli);
  try {
    cli(change(created.key));
  } catch {
    return null;
  }
  return created;
}

/** The token when the gateway serves a user route with it; null (and why) when it does not. */
async function accepted(gatewayUrl: string, app: Credentials, token: string): Promise<string | null> {
  const answer = await fetch(`${gatewayUrl}/api/Devices`, {
    headers: { 'x-api-key': app.key, 'x-api-secret': app.secret, authorization: `Bearer ${token}` },
  });
  if (answer.ok) return token;
  console.log(`bench: a token without a session was refused (${answer.status}): the session rows are left out`);
  return null;
}

/**
 * Puts a plan quota the bench never reaches on the user's authorization record, as identity writes it once
 * billing fills it (issue 29): the record's next version, so the gateway reads it on the next request. A
 * checkout before quotas ignores the field.
 */
async function withQuota(gatewayUrl: string, app: Credentials, token: string, redisUrl: string, entry: string): Promise<void> {
  // A user request first, so that identity has written the record through.
  await fetch(`${gatewayUrl}/api/Devices`, {
    headers: { 'x-api-key': app.key, 'x-api-secret': app.secret, authorization: `Bearer ${token}` },
  });
  const redis = (...args: string[]): string => execFileSync('redis-cli', ['-u', redisUrl, ...args], { encoding: 'utf8' }).trim();
  const raw = redis('GET', entry);
  const bar = raw.indexOf('|');
  // A checkout from before the records' hash tags (e.g. b727834) keeps them elsewhere, and ignores quotas anyway.
  if (bar < 0) return console.log(`bench: no authorization record at ${entry} (an older checkout): its quota rows run without one`);
  // Three ended sessions too (none of them the bench token's), as the record carries them while their tokens
  // could still be presented: the session check walks them on every request with a `sid`.
  const endedSessions = Array.from({ length: 3 }, () => randomUUID());
  const record = { ...JSON.parse(raw.slice(bar + 1)), quota: { plan: 'bench', perMonth: 1_000_000_000, perDay: null }, endedSessions };
  redis('SET', entry, `${Number(raw.slice(0, bar)) + 1}|${JSON.stringify(record)}`);
}

async function userToken(gatewayUrl: string, app: Credentials): Promise<string> {
  const email = `bench-${Math.random().toString(36).slice(2)}@example.com`;
  const password = `bench-${Math.random().toString(36).slice(2)}-password`;
  const post = (path: string, body: unknown) =>
    fetch(gatewayUrl + path, {
      method: 'POST',
      headers: { 'x-api-key': app.key, 'x-api-secret': app.secret, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  await post('/api/Users/Register', { email, password, firstName: 'Bench', lastName: 'User' });
  const login = await post('/api/Users/Login', { email, password });
  if (!login.ok) throw new Error(`bench user login failed: ${login.status} ${await login.text()}`);
  return ((await login.json()) as { token: string }).token;
}
