import { listAuditLogEndpoint } from '@acs/contracts';
import { Router, handle, type AppState } from '@acs/http';
import { listFeed } from '../data-access/audit-feed-repository.js';
import type { IdentityDeps } from '../domain/deps.js';

/** The cursor (already checked against its pattern by the contract) as the position to continue after. */
function cursorPosition(cursor: string | undefined): { occurredAtMs: number; id: number } | undefined {
  if (cursor === undefined) return undefined;
  const [ms, id] = cursor.split('_');
  return { occurredAtMs: Number(ms), id: Number(id) };
}

/** GET /api/AuditLog: the signed-in user's own trail, from identity's feed (docs/architecture.md, decision 14). */
export function auditRoutes(deps: IdentityDeps): Router<AppState> {
  const router = new Router<AppState>();
  handle(router, listAuditLogEndpoint, async (ctx, { caller, query }) => {
    const page = await listFeed(deps.db, {
      userId: caller.userId,
      after: cursorPosition(query.cursor),
      action: query.action,
      targetType: query.targetType,
      targetId: query.targetId,
      limit: query.pageSize,
    });
    ctx.set('Cache-Control', 'no-store');
    ctx.body = page;
  });
  return router;
}
