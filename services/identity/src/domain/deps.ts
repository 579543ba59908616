import type { Db } from '@acs/db';
import type { Cache } from '@acs/cache';
import type { AuditActor } from '@acs/audit';
import type { Logger } from '@acs/logger';
import type { PasswordHasher } from './passwords.js';
import type { JwtSigner } from './signing-keys.js';
import type { Mailer } from '../mail/mailer.js';
import type { TotpKey } from './totp-secret-box.js';

/** What changes to a user need: the database, the cache they write through to, a logger. The CLI has only these. */
export interface UserStore {
  db: Db;
  cache: Cache;
  logger: Logger;
  /** Who the audit trail names for the changes made through this store: the request's user, an operator's CLI, or the system. */
  actor: AuditActor;
}

export interface IdentitySettings {
  trialDurationSeconds: number;
  jwtTtlSeconds: number;
  jwtIssuer: string;
  jwtAudience: string;
  maxFailuresPerAccountAddress: number;
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  failureWindowSeconds: number;
  knownAddressSeconds: number;
  maxRegistrationsPerAddress: number;
  registrationWindowSeconds: number;
  /** Where e-mailed links point (DASHBOARD_PUBLIC_URL), without a trailing slash. */
  dashboardUrl: string;
}

/**
 * Which limit refused a login: the (account, address) pair, the address across accounts, or the
 * account across addresses (refused only at addresses the account does not know).
 */
export type ThrottledLimit = 'account_address' | 'address' | 'account';

/** What the use cases report for operators (identity-metrics.ts counts it for Prometheus). */
export interface IdentityMetrics {
  loginThrottled(limit: ThrottledLimit): void;
  registrationThrottled(): void;
  /** A login counted on this process's own limiter because the shared one (Redis) could not be reached. */
  localLimiterUsed(): void;
}

/** What the use cases need; built once in service.ts and passed down (tests may swap a member). */
export interface IdentityDeps extends UserStore {
  passwords: PasswordHasher;
  signer: JwtSigner;
  settings: IdentitySettings;
  metrics: IdentityMetrics;
  /**
   * This process's own counters (in memory), used for sign-in limits only while `cache` cannot be
   * reached: sign-in keeps working, limited per process, instead of failing for everyone.
   */
  localLimiter: Cache;
  /** Outgoing mail: SMTP (SMTP_URL) or the dev mailbox file. */
  mailer: Mailer;
  /** Encrypts TOTP secrets at rest (TOTP_ENCRYPTION_KEY, or the key kept in DATA_DIR). */
  totpKey: TotpKey;
  /** Wakes the outbox relay after a commit that wrote an event (user.deleted.v1); unset: the relay's next poll. */
  onOutboxWrite?: () => void;
}
