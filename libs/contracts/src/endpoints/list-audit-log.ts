import { type Endpoint, OWN_ACCOUNT } from '../endpoint.js';
import { cursorPageParameters } from '../cursor-page.js';
import {
  AUDIT_LOG_DEFAULT_PAGE_SIZE,
  AUDIT_LOG_MAX_PAGE_SIZE,
  AUDIT_LOG_PAGING,
  AUDIT_ACTIONS,
  AUDIT_TARGET_TYPES,
  SESSION_END_REASONS,
  auditLogQuerySchema,
  auditLogResponseSchema,
} from '../audit.js';

export const listAuditLogEndpoint = {
  operationId: 'listAuditLog',
  method: 'GET',
  path: '/api/AuditLog',
  ...OWN_ACCOUNT,
  summary: "The signed-in user's audit trail",
  description:
    'Every change to the account, its sign-ins, its API keys and its subscriptions, newest first: who made it (the user, an operator, the system), ' +
    'the action, the target, before and after (never a secret), the request id and the client address. ' +
    `Actions: ${AUDIT_ACTIONS.join(', ')}; session.ended's after.reason says why (${SESSION_END_REASONS.join(', ')}). ` +
    `pageSize defaults to ${AUDIT_LOG_DEFAULT_PAGE_SIZE}, at most ${AUDIT_LOG_MAX_PAGE_SIZE}; pass nextCursor as cursor for older entries (null on the last page). ` +
    "Entries of other services arrive through the bus, so one may show a moment after the change. Needs system:full-access and the user's JWT.",
  query: {
    schema: auditLogQuerySchema,
    parameters: [
      ...cursorPageParameters(AUDIT_LOG_PAGING, 'Entries per page'),
      {
        name: 'action',
        description: 'Only this action, e.g. api_key.revoked or session.created',
        schema: { type: 'string', minLength: 1, maxLength: 100 },
      },
      {
        name: 'targetType',
        description: `Only this kind of target: ${AUDIT_TARGET_TYPES.join(', ')}`,
        schema: { type: 'string', minLength: 1, maxLength: 40 },
      },
      {
        name: 'targetId',
        description: 'Only this target (a key id, a session id, a subscription id, the account id)',
        schema: { type: 'string', minLength: 1, maxLength: 100 },
      },
    ],
  },
  success: { status: 200, description: 'A page of the trail', schema: auditLogResponseSchema },
} satisfies Endpoint;
