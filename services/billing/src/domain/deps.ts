import type { Db } from '@acs/db';
import type { AuditActor } from '@acs/audit';
import type { Logger } from '@acs/logger';
import type { PaymentGateway } from './payment-gateway.js';

export interface BillingSettings {
  /** Period lengths in seconds by billing interval. */
  periodSeconds: { month: number; year: number };
  idempotencyKeyTtlSeconds: number;
}

/** What the use cases need; built once in service.ts and passed down (tests may swap a member). */
export interface BillingDeps {
  db: Db;
  logger: Logger;
  payments: PaymentGateway;
  settings: BillingSettings;
  /** Called after a commit that wrote outbox rows, so the relay publishes now rather than at its next poll. */
  onOutboxWrite(): void;
  /** Who the audit trail names for the changes made through these deps (the routes put the request's user here). */
  actor: AuditActor;
}
