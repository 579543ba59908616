import { parseArgs } from 'node:util';
import { z } from 'zod';
import { parseConfig, postgresUrl, redisUrl, serviceDatabaseUrl, ConfigError } from '@acs/config';
import { createMemoryCache, createRedisCache, type Cache } from '@acs/cache';
import { assertDataDirFree } from '@acs/db';
import { AppError } from '@acs/errors';
import { createLogger } from '@acs/logger';
import { AUTHZ_CACHE_TTL_SECONDS } from '@acs/contracts';
import { setUserRole } from './domain/change-user.js';
import type { UserStore } from './domain/deps.js';
import { ROLE_NAMES, roleName, type RoleName } from '@acs/contracts';
import { accessAt, nowSeconds } from './domain/user.js';
import { openIdentityStore } from './service.js';

const HELP = `Manage user accounts.

Usage: npm run users -- <command> [options]

Commands:
  set-role --email EMAIL --role free|subscriber|admin|superadmin
        Set the account role of the user with that e-mail (any case). The gateway applies it on
        the user's next request; no new login is needed. The effective role is never below
        Subscriber during a trial or an active subscription.

Options:
  -h, --help  Show this text.

Environment:
  IDENTITY_DATABASE_URL  the identity database, used as is
  DATABASE_URL           the system's PostgreSQL server; the identity database is <name>_identity (as npm start does)
  REDIS_URL              the gateway's Redis, written through so changes apply at once
  REDIS_PREFIX           Redis key prefix (default acs:)
  DATA_DIR               embedded mode data (default ./.data); the system must be stopped
`;

const NOT_WRITTEN_THROUGH = `Warning: REDIS_URL is not set, so the change is in the database only. A running gateway keeps its cached authorization record until the entry expires (up to ${AUTHZ_CACHE_TTL_SECONDS / 3600} h): set REDIS_URL (and REDIS_PREFIX) to the gateway's Redis, or restart the system.`;

const cliEnvSchema = z.object({
  IDENTITY_DATABASE_URL: postgresUrl().optional(),
  DATABASE_URL: postgresUrl().optional(),
  REDIS_URL: redisUrl().optional(),
  REDIS_PREFIX: z.string().default('acs:'),
  DATA_DIR: z.string().default('./.data'),
});

interface CliDeps {
  store: UserStore;
  /** A PostgreSQL database without REDIS_URL: a running system may hold records this process cannot reach. */
  cacheNotShared: boolean;
}

async function openDeps(): Promise<CliDeps> {
  const env = parseConfig('users cli', cliEnvSchema);
  const databaseUrl = env.IDENTITY_DATABASE_URL ?? (env.DATABASE_URL ? serviceDatabaseUrl(env.DATABASE_URL, 'identity') : undefined);
  // PGlite is single-process: writing under a running system's feet would corrupt it.
  if (!databaseUrl) await assertDataDirFree(env.DATA_DIR);
  const logger = createLogger({ name: 'users-cli', level: 'warn' });
  const cache: Cache = env.REDIS_URL ? createRedisCache({ url: env.REDIS_URL, keyPrefix: env.REDIS_PREFIX, logger }) : createMemoryCache();
  try {
    const store = await openIdentityStore({ DATABASE_URL: databaseUrl, DATA_DIR: env.DATA_DIR }, logger, cache);
    return { store, cacheNotShared: databaseUrl !== undefined && !env.REDIS_URL };
  } catch (err) {
    await cache.close();
    throw err;
  }
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      email: { type: 'string' },
      role: { type: 'string' },
    },
  });
  const [command, extra] = positionals;
  if (values.help || !command) {
    console.log(HELP);
    return;
  }
  if (command !== 'set-role') throw new AppError('bad_request', 'Bad request', `Unknown command "${command}". Run with --help.`);
  if (extra !== undefined) throw new AppError('bad_request', 'Bad request', `Unexpected argument "${extra}". Run with --help.`);
  if (!values.email) throw new AppError('bad_request', 'Bad request', 'set-role needs --email EMAIL');
  if (!values.role) throw new AppError('bad_request', 'Bad request', `set-role needs --role ${ROLE_NAMES.join('|')}`);
  const role = ROLE_NAMES.indexOf(values.role.toLowerCase() as RoleName);
  if (role < 0) throw new AppError('bad_request', 'Bad request', `Unknown role "${values.role}": expected one of ${ROLE_NAMES.join(', ')}`);

  const { store, cacheNotShared } = await openDeps();
  try {
    const user = await setUserRole(store, values.email, role);
    const { role: effective } = accessAt(user, nowSeconds());
    console.log(`User ${user.id} (${user.email}): account role ${roleName(user.accountRole)} (${user.accountRole}); effective role now ${roleName(effective)} (${effective}).`);
    // The write-through went to this process's own memory: a gateway caching the record elsewhere still has the old one.
    if (cacheNotShared) console.error(NOT_WRITTEN_THROUGH);
  } finally {
    await store.db.close();
    await store.cache.close();
  }
}

run(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof AppError || err instanceof ConfigError) console.error(err.message);
  else if (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) console.error(`${err.message}. Run with --help.`);
  else console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
