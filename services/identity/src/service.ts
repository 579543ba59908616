import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { openDatabase, migrate, type Db } from '@acs/db';
import type { Cache } from '@acs/cache';
import type { Logger } from '@acs/logger';
import { listen, type RunningServer } from '@acs/http';
import type { IdentityConfig } from './config.js';
import { buildIdentityApp } from './app.js';
import type { IdentityDeps, UserStore } from './domain/deps.js';
import { createPasswordHasher } from './domain/passwords.js';
import { applySeedAdmin, assertSeedAdmin } from './domain/seed-admin.js';
import { loadSigner, type JwtSigner } from './domain/signing-keys.js';

export const IDENTITY_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

export interface IdentityService {
  server: RunningServer;
  deps: IdentityDeps;
  close(): Promise<void>;
}

type StoreConfig = Pick<IdentityConfig, 'DATABASE_URL' | 'DATA_DIR'>;

/** Opens this service's database (PostgreSQL when DATABASE_URL is set, else PGlite under DATA_DIR/identity), migrated. */
export async function openIdentityStore(config: StoreConfig, logger: Logger, cache: Cache): Promise<UserStore> {
  const db: Db = await openDatabase(config.DATABASE_URL ? { url: config.DATABASE_URL, logger } : { dataDir: join(config.DATA_DIR, 'identity'), logger });
  try {
    await migrate(db, IDENTITY_MIGRATIONS_DIR, logger);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return { db, cache, logger };
}

/** Everything the HTTP use cases need. The signer is loaded first (by startIdentityService) so a bad key opens nothing. */
export async function openIdentityDeps(config: IdentityConfig, logger: Logger, cache: Cache, signer?: JwtSigner): Promise<IdentityDeps> {
  const loadedSigner = signer ?? (await loadSigner({ signingKey: config.JWT_SIGNING_KEY, verificationKeys: config.JWT_VERIFICATION_KEYS, dataDir: config.DATA_DIR }, logger));
  const passwords = await createPasswordHasher(config.BCRYPT_COST);
  const store = await openIdentityStore(config, logger, cache);
  return {
    ...store,
    passwords,
    signer: loadedSigner,
    settings: {
      trialDurationSeconds: config.TRIAL_DURATION_SECONDS,
      jwtTtlSeconds: config.JWT_TTL_SECONDS,
      jwtIssuer: config.JWT_ISSUER,
      jwtAudience: config.JWT_AUDIENCE,
      maxFailuresPerAccount: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerAddress: config.LOGIN_MAX_FAILURES_PER_ADDRESS,
      failureWindowSeconds: config.LOGIN_FAILURE_WINDOW_SECONDS,
    },
  };
}

/** Starts the identity service; the cache is passed in because the embedded mode shares one with the gateway. */
export async function startIdentityService(config: IdentityConfig, logger: Logger, cache: Cache): Promise<IdentityService> {
  // Checked before anything is opened: a bad seed or key must not leave a database pool behind.
  const seed = assertSeedAdmin(config.SEED_ADMIN_EMAIL, config.SEED_ADMIN_PASSWORD);
  const signer = await loadSigner({ signingKey: config.JWT_SIGNING_KEY, verificationKeys: config.JWT_VERIFICATION_KEYS, dataDir: config.DATA_DIR }, logger);
  const deps = await openIdentityDeps(config, logger, cache, signer);
  try {
    if (seed) await applySeedAdmin(deps, seed);
    const app = buildIdentityApp({ deps, internalSecret: config.INTERNAL_SECRET, migrationsDir: IDENTITY_MIGRATIONS_DIR });
    const server = await listen(app.callback(), config.PORT, config.HOST);
    logger.info({ url: server.url, kid: signer.kid }, 'identity service listening');
    return {
      server,
      deps,
      close: async () => {
        await server.close();
        await deps.db.close();
      },
    };
  } catch (err) {
    // A failed start (seed, port taken) must not keep the pool's connections open.
    await deps.db.close().catch((closeErr: unknown) => logger.error({ err: closeErr }, 'could not close the database after a failed start'));
    throw err;
  }
}
