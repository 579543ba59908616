import type { Db } from '@acs/db';
import type { Cache } from '@acs/cache';
import type { Logger } from '@acs/logger';
import type { AuditActor } from '@acs/audit';

/** What the use cases need; built once in service.ts (or by the CLI) and passed down. */
export interface KeysDeps {
  db: Db;
  cache: Cache;
  logger: Logger;
  keyPrefix: string;
  /** Called after a commit that wrote outbox rows, so the relay publishes now rather than at its next poll. */
  onOutboxWrite(): void;
  /** Who the audit trail names for the changes made through these deps: the user of a request, an operator's CLI, or the system. */
  actor: AuditActor;
}
