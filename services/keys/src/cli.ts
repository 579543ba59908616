import { parseArgs } from 'node:util';
import { z } from 'zod';
import { parseConfig, postgresUrl, redisUrl, serviceDatabaseUrl, ConfigError } from '@acs/config';
import { KEY_PREFIX_PATTERN, KEY_ENVIRONMENTS, parseApiKey, type KeyEnvironment } from '@acs/auth';
import { createMemoryCache, createRedisCache, type Cache } from '@acs/cache';
import { assertDataDirFree } from '@acs/db';
import { AppError } from '@acs/errors';
import { createLogger } from '@acs/logger';
import { API_KEY_CACHE_TTL_SECONDS, formatRateLimits, parseRateLimitsText, type RateLimits } from '@acs/contracts';
import { findApiKeyById, findApiKeyByKey, listApiKeys } from './data-access/api-keys-repository.js';
import { createApiKey } from './domain/create-key.js';
import { changeApiKey, revokeApiKey } from './domain/change-key.js';
import { parseOperatorScopes } from './domain/scope-rules.js';
import type { KeysDeps } from './domain/deps.js';
import { openKeysDeps } from './service.js';
import { keysConfigSchema } from './config.js';

const HELP = `Manage API keys (the only tool, with the start-up seed, that can create system:full-access keys).

Usage: npm run keys -- <command> [options]

Commands:
  create --scopes "<scope> <scope>" [--name NAME] [--env live|test] [--owner USER_ID]
        Create a key; prints the key and its secret once. Without --owner it is a system key.
  list [--owner USER_ID]
        List keys, newest first (never secrets).
  set-scopes <id|key> --scopes "<scope> <scope>"
        Replace a key's scopes; the gateway applies them on the next request.
  set-limits <id|key> --limits "<limit>/<n><s|m|h|d>,..." | --clear
        Set a key's own rate limits (up to 4 windows, e.g. "20/1s,50000/1d"), or clear them so the
        gateway's default for the key's environment applies. Applies on the key's next request.
  revoke <id|key>
        Revoke a key; it stops working on the next request. The record is kept.

Scopes: auth:login auth:register register:device read:devices write:devices system:full-access

Environment:
  KEYS_DATABASE_URL  the keys database, used as is
  DATABASE_URL       the system's PostgreSQL server; the keys database is <name>_keys (as npm start does)
  REDIS_URL          the gateway's Redis, written through so changes apply at once
  REDIS_PREFIX       Redis key prefix (default acs:)
  DATA_DIR           embedded mode data (default ./.data); the system must be stopped
  KEY_PREFIX         key prefix of this deployment (default acs)
`;

const NOT_WRITTEN_THROUGH = `Warning: REDIS_URL is not set, so the change is in the database only. A running gateway keeps its cached copy of the key until the entry expires (up to ${API_KEY_CACHE_TTL_SECONDS / 3600} h): set REDIS_URL (and REDIS_PREFIX) to the gateway's Redis, or restart the system.`;

const cliEnvSchema = z.object({
  KEYS_DATABASE_URL: postgresUrl().optional(),
  DATABASE_URL: postgresUrl().optional(),
  REDIS_URL: redisUrl().optional(),
  REDIS_PREFIX: z.string().default('acs:'),
  DATA_DIR: z.string().default('./.data'),
  KEY_PREFIX: z.string().regex(KEY_PREFIX_PATTERN).default('acs'),
});

interface CliDeps {
  deps: KeysDeps;
  cache: Cache;
  /** A PostgreSQL database without REDIS_URL: a running system may hold key records this process cannot reach. */
  cacheNotShared: boolean;
}

async function openDeps(): Promise<CliDeps> {
  const env = parseConfig('keys cli', cliEnvSchema);
  const databaseUrl = env.KEYS_DATABASE_URL ?? (env.DATABASE_URL ? serviceDatabaseUrl(env.DATABASE_URL, 'keys') : undefined);
  // PGlite is single-process: writing under a running system's feet would corrupt it.
  if (!databaseUrl) await assertDataDirFree(env.DATA_DIR);
  const logger = createLogger({ name: 'keys-cli', level: 'warn' });
  const cache = env.REDIS_URL ? createRedisCache({ url: env.REDIS_URL, keyPrefix: env.REDIS_PREFIX, logger }) : createMemoryCache();
  const config = keysConfigSchema.parse({ ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), DATA_DIR: env.DATA_DIR, KEY_PREFIX: env.KEY_PREFIX, INTERNAL_SECRET: 'x'.repeat(32) });
  return { deps: await openKeysDeps(config, logger, cache), cache, cacheNotShared: databaseUrl !== undefined && !env.REDIS_URL };
}

async function resolveId(deps: KeysDeps, idOrKey: string | undefined): Promise<string> {
  if (!idOrKey) throw new AppError('bad_request', 'Bad request', 'Name the key: its id or the key itself');
  const found = parseApiKey(idOrKey) ? await findApiKeyByKey(deps.db, idOrKey) : z.uuid().safeParse(idOrKey).success ? await findApiKeyById(deps.db, idOrKey) : null;
  if (!found) throw new AppError('not_found', 'Not found', `No API key ${idOrKey}`);
  return found.id;
}

function printKey(k: { id: string; key: string; name: string; scopes: string[]; environment: string; ownerUserId: number | null; createdAt: Date; revokedAt: Date | null; rateLimits: RateLimits | null }): void {
  const owner = k.ownerUserId === null ? 'system' : `user ${k.ownerUserId}`;
  const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active';
  const limits = k.rateLimits ? `limits ${formatRateLimits(k.rateLimits)}` : 'default limits';
  console.log(`${k.id}  ${k.key}  [${k.scopes.join(' ')}]  ${k.environment}  ${owner}  ${state}  ${limits}  "${k.name}"  created ${k.createdAt.toISOString()}`);
}

/** set-limits: exactly one of --limits "<list>" and --clear (null: the gateway's default applies). */
function rateLimitsOption(limits: string | undefined, clear: boolean | undefined): RateLimits | null {
  if ((limits === undefined) === !clear) throw new AppError('bad_request', 'Bad request', 'set-limits needs either --limits "20/1s,50000/1d" or --clear');
  if (clear) return null;
  try {
    return parseRateLimitsText(limits!);
  } catch (err) {
    throw new AppError('bad_request', 'Bad request', `--limits: ${(err as Error).message}`);
  }
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      scopes: { type: 'string' },
      name: { type: 'string' },
      env: { type: 'string' },
      owner: { type: 'string' },
      limits: { type: 'string' },
      clear: { type: 'boolean' },
    },
  });
  const [command, target] = positionals;
  if (values.help || !command) {
    console.log(HELP);
    return;
  }
  if (!['create', 'list', 'set-scopes', 'set-limits', 'revoke'].includes(command)) throw new AppError('bad_request', 'Bad request', `Unknown command "${command}". Run with --help.`);
  const environment = (values.env ?? 'live') as KeyEnvironment;
  if (!KEY_ENVIRONMENTS.includes(environment)) throw new AppError('bad_request', 'Bad request', '--env must be live or test');
  // Digits only: Number() would take '' as 0, '1e3' as 1000 and '-5' as a user id.
  const owner = values.owner === undefined ? undefined : /^[1-9][0-9]{0,15}$/.test(values.owner) ? Number(values.owner) : NaN;
  if (owner !== undefined && !Number.isSafeInteger(owner)) throw new AppError('bad_request', 'Bad request', '--owner must be a user id');
  const scopes = values.scopes === undefined ? undefined : parseOperatorScopes(values.scopes);
  if ((command === 'create' || command === 'set-scopes') && !scopes) throw new AppError('bad_request', 'Bad request', `${command} needs --scopes "<scope> <scope>"`);
  const rateLimits = command === 'set-limits' ? rateLimitsOption(values.limits, values.clear) : undefined;

  const { deps, cache, cacheNotShared } = await openDeps();
  try {
    if (command === 'create') {
      const { apiKey, secret } = await createApiKey(deps, { name: values.name ?? 'created with the keys CLI', scopes: scopes!, ownerUserId: owner ?? null, environment });
      console.log(`API key created (${apiKey.id}). The secret is shown this once: store it now.\n`);
      console.log(`X-Api-Key:    ${apiKey.key}`);
      console.log(`X-Api-Secret: ${secret}`);
      console.log(`Scopes:       ${apiKey.scopes.join(' ')}`);
    } else if (command === 'list') {
      const keys = await listApiKeys(deps.db, owner === undefined ? {} : { ownerUserId: owner });
      if (keys.length === 0) console.log('No API keys.');
      keys.forEach(printKey);
    } else if (command === 'set-scopes') {
      printKey(await changeApiKey(deps, await resolveId(deps, target), { scopes: scopes! }));
    } else if (command === 'set-limits') {
      printKey(await changeApiKey(deps, await resolveId(deps, target), { rateLimits: rateLimits! }));
    } else {
      printKey(await revokeApiKey(deps, await resolveId(deps, target)));
    }
    // The write-through went to this process's own memory: a gateway caching the key elsewhere
    // (Redis, or the in-process cache of an `npm start` on PostgreSQL) still has the old record.
    if (cacheNotShared && (command === 'set-scopes' || command === 'set-limits' || command === 'revoke')) console.error(NOT_WRITTEN_THROUGH);
  } finally {
    await deps.db.close();
    await cache.close();
  }
}

run(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof AppError || err instanceof ConfigError) console.error(err.message);
  else if (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) console.error(`${err.message}. Run with --help.`);
  else console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
