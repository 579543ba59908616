import { appendAudit, auditRecordedPayload, auditView, defineAuditTable, type AuditActor, type AuditChange } from '@acs/audit';
import { defineOutboxTable, recordAuditEvent } from '@acs/outbox';
import type { Queryable } from '@acs/db';
import type { ApiKey } from '../domain/api-key.js';

/** migrations/008_audit.sql; the lock key spells 'kaud' (the outbox relay's is 'keys'). */
export const KEYS_AUDIT = defineAuditTable('keys', 'audit_log', 0x6b617564);

/** migrations/008_audit.sql: audit.recorded events for identity's feed; the relay's lock key spells 'kaob'. */
export const KEYS_AUDIT_OUTBOX = defineOutboxTable('audit_outbox', 0x6b616f62);

/** `api_key.expired`: the expiry sweep saw the key's expiresAt pass (actor: the system); nothing else changed. */
export type KeyAuditAction =
  | 'api_key.created'
  | 'api_key.changed'
  | 'api_key.rolled'
  | 'api_key.revoked'
  | 'api_key.seeded'
  | 'api_key.expired'
  /** A leak report named the key's secret: revoked with reason exposed (issue 31). */
  | 'api_key.exposed';

/** What the trail shows of a key: its settings and lifecycle, never its secret, a hash or the key value (the id names it). */
const KEY_VIEW = [
  'name',
  'scopes',
  'environment',
  'ownerUserId',
  'rateLimits',
  'expiresAt',
  'revokedAt',
  'previousSecretEndsAt',
  'revokedReason',
  'exposedAt',
  'ipAllowList',
] as const;
const keyView = (apiKey: ApiKey) => auditView(apiKey, KEY_VIEW);

/**
 * Records a key change in the audit trail, inside the change's transaction, and hands the entry to
 * identity's feed (GET /api/AuditLog) through the outbox (docs/architecture.md, decision 14).
 */
export async function recordKeyChange(
  tx: Queryable,
  actor: AuditActor,
  action: KeyAuditAction,
  before: ApiKey | null,
  after: ApiKey,
): Promise<void> {
  const change: AuditChange = {
    action,
    targetType: 'api_key',
    targetId: after.id,
    userId: after.ownerUserId,
    before: before ? keyView(before) : null,
    after: keyView(after),
  };
  const entry = await appendAudit(tx, KEYS_AUDIT, actor, change);
  await recordAuditEvent(tx, KEYS_AUDIT_OUTBOX, auditRecordedPayload(KEYS_AUDIT.service, entry, actor, change));
}
