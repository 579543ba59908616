import { auditRoutes } from './routes/audit-routes.js';
import type Koa from 'koa';
import { createServiceApp, type AppState, type ServiceAppOptions } from '@acs/http';
import { cacheReadinessCheck } from '@acs/cache';
import { databaseReadinessChecks } from '@acs/db';
import type { IdentityDeps } from './domain/deps.js';
import { internalRoutes } from './routes/internal-routes.js';
import { userRoutes } from './routes/user-routes.js';
import { sessionRoutes } from './routes/session-routes.js';
import { passwordRoutes } from './routes/password-routes.js';
import { verificationRoutes } from './routes/verification-routes.js';
import { twoFactorRoutes } from './routes/two-factor-routes.js';
import { accountRoutes } from './routes/account-routes.js';

export type IdentityAppOptions = ServiceAppOptions<IdentityDeps>;

export function buildIdentityApp(options: IdentityAppOptions): Koa<AppState> {
  const { deps, migrationsDir } = options;
  const readiness = { ...databaseReadinessChecks(deps.db, migrationsDir), ...cacheReadinessCheck(deps.cache) };
  return createServiceApp('identity', options, readiness, [
    userRoutes(deps),
    auditRoutes(deps),
    sessionRoutes(deps),
    passwordRoutes(deps),
    verificationRoutes(deps),
    twoFactorRoutes(deps),
    accountRoutes(deps),
    internalRoutes(deps),
  ]);
}
