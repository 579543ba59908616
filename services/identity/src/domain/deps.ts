import type { Db } from '@acs/db';
import type { Cache } from '@acs/cache';
import type { Logger } from '@acs/logger';
import type { PasswordHasher } from './passwords.js';
import type { JwtSigner } from './signing-keys.js';

/** What changes to a user need: the database, the cache they write through to, a logger. The CLI has only these. */
export interface UserStore {
  db: Db;
  cache: Cache;
  logger: Logger;
}

export interface IdentitySettings {
  trialDurationSeconds: number;
  jwtTtlSeconds: number;
  jwtIssuer: string;
  jwtAudience: string;
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  failureWindowSeconds: number;
}

/** Which failed-login limit refused a login. */
export type ThrottledLimit = 'account' | 'address' | 'account_and_address';

/** What the use cases report for operators (identity-metrics.ts counts it for Prometheus). */
export interface IdentityMetrics {
  loginThrottled(limit: ThrottledLimit): void;
}

/** What the use cases need; built once in service.ts and passed down (tests may swap a member). */
export interface IdentityDeps extends UserStore {
  passwords: PasswordHasher;
  signer: JwtSigner;
  settings: IdentitySettings;
  metrics: IdentityMetrics;
}
