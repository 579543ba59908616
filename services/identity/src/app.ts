import { auditRoutes } from './routes/audit-routes.js';
import type Koa from 'koa';
import { createHttpApp, type AppState, type HttpAppOptions } from '@acs/http';
import { cacheReadinessCheck } from '@acs/cache';
import { databaseReadinessChecks } from '@acs/db';
import type { Registry } from '@acs/metrics';
import type { IdentityDeps } from './domain/deps.js';
import { internalRoutes } from './routes/internal-routes.js';
import { userRoutes } from './routes/user-routes.js';
import { sessionRoutes } from './routes/session-routes.js';
import { passwordRoutes } from './routes/password-routes.js';
import { verificationRoutes } from './routes/verification-routes.js';
import { twoFactorRoutes } from './routes/two-factor-routes.js';
import { accountRoutes } from './routes/account-routes.js';

export interface IdentityAppOptions {
  deps: IdentityDeps;
  /** This service's own internal keys (libs/config internalKeys). */
  internalSecret: HttpAppOptions['internalSecret'];
  migrationsDir: string;
  metrics: Registry;
}

export function buildIdentityApp({ deps, internalSecret, migrationsDir, metrics }: IdentityAppOptions): Koa<AppState> {
  return createHttpApp({
    readiness: {
      ...databaseReadinessChecks(deps.db, migrationsDir),
      ...cacheReadinessCheck(deps.cache),
    },
    service: 'identity',
    logger: deps.logger,
    internalSecret,
    routers: [
      userRoutes(deps),
      auditRoutes(deps),
      sessionRoutes(deps),
      passwordRoutes(deps),
      verificationRoutes(deps),
      twoFactorRoutes(deps),
      accountRoutes(deps),
      internalRoutes(deps),
    ],
    metrics,
  });
}
