import { z } from 'zod';
import { cursorPageQueryFields, type CursorPaging } from './cursor-page.js';

// The audit trail as users read it (GET /api/AuditLog) and as keys and billing hand their entries
// to identity, which answers it (docs/architecture.md, decision 14).

const isoTimestamp = z.iso.datetime({ offset: true });
const view = z.record(z.string(), z.unknown()).nullable();

const auditActorSchema = z.object({
  type: z.enum(['user', 'operator', 'system']),
  id: z.string().nullable(),
  requestId: z.string().nullable(),
  clientAddress: z.string().nullable(),
});

/** `audit.recorded.v1`: an entry of a service's own trail, published through its outbox in the entry's transaction. */
export const AUDIT_RECORDED_EVENT_TYPE = 'audit.recorded.v1';
export const AUDIT_RECORDED_ROUTING_KEY = 'audit.recorded';

const auditRecordedPayloadSchema = z.object({
  eventId: z.uuid(),
  /** The service whose chain holds the entry, and the entry's id there: (service, entryId) is unique. */
  service: z.string().min(1).max(40),
  entryId: z.number().int().positive(),
  occurredAt: isoTimestamp,
  actor: auditActorSchema,
  action: z.string().min(1).max(100),
  targetType: z.string().min(1).max(40),
  targetId: z.string().min(1).max(100),
  userId: z.number().int().positive(),
  before: view,
  after: view,
});
export type AuditRecordedPayload = z.infer<typeof auditRecordedPayloadSchema>;

export const auditRecordedEventSchema = z.object({
  id: z.uuid(),
  type: z.literal(AUDIT_RECORDED_EVENT_TYPE),
  occurredAt: isoTimestamp,
  payload: auditRecordedPayloadSchema.passthrough(),
});

/**
 * The actions the services record today (the trail may hold more later: readers show an unknown one
 * as it is). identity: account.*, session.*; keys: api_key.*; billing: subscription.*.
 */
export const AUDIT_ACTIONS = [
  'account.created',
  'account.seeded',
  'account.role_changed',
  'account.trial_changed',
  'account.subscription_changed',
  'session.created',
  'session.ended',
  'api_key.created',
  'api_key.changed',
  'api_key.rolled',
  'api_key.revoked',
  'api_key.expired',
  'api_key.seeded',
  'subscription.activated',
  'subscription.changed',
  'subscription.canceled',
] as const;

/** What an entry is about: the `targetType` filter. A session's id is the `sid` of its tokens. */
export const AUDIT_TARGET_TYPES = ['account', 'session', 'api_key', 'subscription'] as const;

/** session.ended's `after.reason`: signed out (the session itself), ended from another session, all others ended, password changed or reset. */
export const SESSION_END_REASONS = ['signed_out', 'ended', 'ended_others', 'password_changed', 'password_reset'] as const;

export const AUDIT_LOG_DEFAULT_PAGE_SIZE = 50;
export const AUDIT_LOG_MAX_PAGE_SIZE = 200;
/** `<occurredAt in ms>_<feed id>` of the last entry of a page: the next page starts after it. */
export const AUDIT_LOG_CURSOR_PATTERN = /^[0-9]{1,15}_[1-9][0-9]{0,17}$/;

export const AUDIT_LOG_PAGING: CursorPaging = {
  pattern: AUDIT_LOG_CURSOR_PATTERN,
  defaultSize: AUDIT_LOG_DEFAULT_PAGE_SIZE,
  maxSize: AUDIT_LOG_MAX_PAGE_SIZE,
};

export const auditLogQuerySchema = z
  .object({
    ...cursorPageQueryFields(AUDIT_LOG_PAGING),
    action: z.string().min(1).max(100).optional(),
    targetType: z.string().min(1).max(40).optional(),
    targetId: z.string().min(1).max(100).optional(),
  })
  .strict();

const auditLogEntrySchema = z.object({
  service: z.string(),
  occurredAt: isoTimestamp,
  actor: auditActorSchema,
  action: z.string(),
  targetType: z.string(),
  targetId: z.string(),
  before: view,
  after: view,
});

export const auditLogResponseSchema = z.object({
  items: z.array(auditLogEntrySchema),
  /** Pass as `cursor` for older entries; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type AuditLogResponseBody = z.infer<typeof auditLogResponseSchema>;
