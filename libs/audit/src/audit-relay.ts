import type { Bus, BusEnvelope } from '@acs/bus';
import { auditRecordedEventSchema } from '@acs/contracts';
import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { outboxEnvelope, startOutboxRelay, type OutboxRelay, type OutboxRow, type OutboxTable } from '@acs/outbox';

/** The envelope exactly as identity's feed parses it. */
function toAuditRecordedEnvelope(row: OutboxRow): BusEnvelope {
  return auditRecordedEventSchema.parse(outboxEnvelope(row, false));
}

/** The relay of a service's `audit_outbox` (its audit migration): the entries of users' trails on their way to identity's feed. */
export function startAuditRelay(
  options: { db: Db; bus: Bus; logger: Logger; table: OutboxTable },
  timing: { OUTBOX_POLL_INTERVAL_MS: number; OUTBOX_RETRY_MIN_MS: number; OUTBOX_RETRY_MAX_MS: number },
): OutboxRelay {
  return startOutboxRelay({
    ...options,
    toEnvelope: toAuditRecordedEnvelope,
    pollIntervalMs: timing.OUTBOX_POLL_INTERVAL_MS,
    retryMinMs: timing.OUTBOX_RETRY_MIN_MS,
    retryMaxMs: timing.OUTBOX_RETRY_MAX_MS,
  });
}
