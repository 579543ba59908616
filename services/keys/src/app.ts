import type Koa from 'koa';
import { createServiceApp, type AppState, type ServiceAppOptions } from '@acs/http';
import { cacheReadinessCheck } from '@acs/cache';
import { databaseReadinessChecks } from '@acs/db';
import type { RateLimits } from '@acs/contracts';
import type { KeysDeps } from './domain/deps.js';
import { internalRoutes } from './routes/internal-routes.js';
import { apiKeyRoutes } from './routes/api-key-routes.js';
import { usageRoutes } from './routes/usage-routes.js';
import { leakReportRoutes } from './routes/leak-report-routes.js';
import type { ScannerKeys } from './domain/scanner-signature.js';

export interface KeysAppOptions extends ServiceAppOptions<KeysDeps> {
  keysPerUser: number;
  /** RATE_LIMIT_CEILING: the most generous limits a user may give a key; null: no ceiling. */
  rateLimitCeiling?: RateLimits | null;
  /** KEY_MAX_LIFETIME_DAYS: how far ahead a user's key may expire; null: no maximum. */
  maxLifetimeDays?: number | null;
  /** USAGE_RETENTION_DAYS: how far back the per-operation usage is kept (and may be asked for). */
  usageRetentionDays?: number;
  /** REQUIRE_VERIFIED_EMAIL_FOR_KEYS: users create keys only once their e-mail address is verified. */
  requireVerifiedEmail?: boolean;
  /** SECRET_SCANNING_PUBLIC_KEYS: the scanners whose signed leak reports revoke keys; none: reports are off. */
  scannerKeys?: ScannerKeys;
}

export function buildKeysApp(options: KeysAppOptions): Koa<AppState> {
  const {
    deps,
    migrationsDir,
    keysPerUser,
    rateLimitCeiling = null,
    maxLifetimeDays = null,
    usageRetentionDays = 90,
    requireVerifiedEmail = false,
    scannerKeys = new Map(),
  } = options;
  const readiness = { ...databaseReadinessChecks(deps.db, migrationsDir), ...cacheReadinessCheck(deps.cache) };
  return createServiceApp('keys', options, readiness, [
    internalRoutes(deps),
    leakReportRoutes(deps, scannerKeys),
    apiKeyRoutes(deps, { keysPerUser, rateLimitCeiling, maxLifetimeDays, requireVerifiedEmail }),
    usageRoutes(deps, usageRetentionDays),
  ]);
}
