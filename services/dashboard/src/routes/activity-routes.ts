import { AUDIT_LOG_CURSOR_PATTERN } from '@acs/contracts';
import type { AccountApi } from '../gateway-client/account-api.js';
import { showPage, type PageHandler, type PageRequest } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { isActivityFamily } from '../pages/activity-labels.js';
import { activityPage, type ActivityQuery } from '../pages/activity-page.js';
import { messagePage } from '../pages/message-page.js';
import { callerOf, chromeFor, failureOf, requireSignIn } from './route-kit.js';

/** Entries per page: a screenful of rows. */
const PAGE_SIZE = 25;

/** The page's query, read leniently: an unknown kind or a mangled cursor shows the newest, unfiltered entries instead of an error. */
function activityQuery(req: PageRequest): ActivityQuery {
  const family = req.query.get('family');
  const cursor = req.query.get('cursor');
  return {
    family: isActivityFamily(family) ? family : null,
    target: (req.query.get('target') ?? '').trim().slice(0, 100),
    cursor: cursor && AUDIT_LOG_CURSOR_PATTERN.test(cursor) ? cursor : null,
  };
}

async function show(api: AccountApi, req: PageRequest) {
  const query = activityQuery(req);
  try {
    const page = await api.listAuditLog(callerOf(req), {
      pageSize: PAGE_SIZE,
      ...(query.family ? { targetType: query.family } : {}),
      ...(query.target ? { targetId: query.target } : {}),
      ...(query.cursor ? { cursor: query.cursor } : {}),
    });
    return showPage(activityPage(chromeFor(req), query, page));
  } catch (err) {
    const failure = failureOf(err, req);
    return showPage(messagePage(chromeFor(req), 'Activity', failure.message), failure.status, failure.headers);
  }
}

/** The user's audit trail (issue 30), read through the gateway's GET /api/AuditLog. */
export function activityRoutes(api: AccountApi): RouteDefinition<PageHandler>[] {
  return [{ method: 'GET', pattern: '/activity', handler: requireSignIn((req) => show(api, req)) }];
}
