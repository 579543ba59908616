import type Koa from 'koa';
import { createHttpApp, type AppState, type HttpAppOptions } from '@acs/http';
import { cacheReadinessCheck } from '@acs/cache';
import { databaseReadinessChecks } from '@acs/db';
import type { RateLimits } from '@acs/contracts';
import type { Registry } from '@acs/metrics';
import type { KeysDeps } from './domain/deps.js';
import { internalRoutes } from './routes/internal-routes.js';
import { apiKeyRoutes } from './routes/api-key-routes.js';
import { usageRoutes } from './routes/usage-routes.js';
import { leakReportRoutes } from './routes/leak-report-routes.js';
import type { ScannerKeys } from './domain/scanner-signature.js';

export interface KeysAppOptions {
  deps: KeysDeps;
  /** This service's own internal keys (libs/config internalKeys). */
  internalSecret: HttpAppOptions['internalSecret'];
  migrationsDir: string;
  keysPerUser: number;
  /** RATE_LIMIT_CEILING: the most generous limits a user may give a key; null: no ceiling. */
  rateLimitCeiling?: RateLimits | null;
  /** KEY_MAX_LIFETIME_DAYS: how far ahead a user's key may expire; null: no maximum. */
  maxLifetimeDays?: number | null;
  /** USAGE_RETENTION_DAYS: how far back the per-operation usage is kept (and may be asked for). */
  usageRetentionDays?: number;
  /** REQUIRE_VERIFIED_EMAIL_FOR_KEYS: users create keys only once their e-mail address is verified. */
  requireVerifiedEmail?: boolean;
  metrics: Registry;
  /** SECRET_SCANNING_PUBLIC_KEYS: the scanners whose signed leak reports revoke keys; none: reports are off. */
  scannerKeys?: ScannerKeys;
}

export function buildKeysApp({
  deps,
  internalSecret,
  migrationsDir,
  keysPerUser,
  rateLimitCeiling = null,
  maxLifetimeDays = null,
  usageRetentionDays = 90,
  requireVerifiedEmail = false,
  metrics,
  scannerKeys = new Map(),
}: KeysAppOptions): Koa<AppState> {
  return createHttpApp({
    readiness: {
      ...databaseReadinessChecks(deps.db, migrationsDir),
      ...cacheReadinessCheck(deps.cache),
    },
    service: 'keys',
    logger: deps.logger,
    internalSecret,
    routers: [
      internalRoutes(deps),
      leakReportRoutes(deps, scannerKeys),
      apiKeyRoutes(deps, { keysPerUser, rateLimitCeiling, maxLifetimeDays, requireVerifiedEmail }),
      usageRoutes(deps, usageRetentionDays),
    ],
    metrics,
  });
}
