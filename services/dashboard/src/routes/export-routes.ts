import type { AccountApi, CallerContext } from '../gateway-client/account-api.js';
import { isGatewayError } from '../gateway-client/gateway-error.js';
import type { PageHandler, PageRequest, PageResponse } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { callerOf, requireSignIn } from './route-kit.js';

/** One part of the export: its data, or why it could not be had (a Free account may not list keys, a service away). */
async function part<T>(read: () => Promise<T>): Promise<T | { unavailable: string }> {
  try {
    return await read();
  } catch (err) {
    if (!isGatewayError(err)) throw err;
    return { unavailable: err.body?.message ?? `the gateway answered ${err.status}` };
  }
}

/** The whole audit trail of the user (every service's entries about them), page after page, newest first. */
async function wholeAuditTrail(api: AccountApi, caller: CallerContext): Promise<unknown[]> {
  const entries: unknown[] = [];
  let cursor: string | null = null;
  do {
    const page = await api.auditLogPage(caller, cursor);
    entries.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return entries;
}

/**
 * Everything the platform holds about the user that its API shows them (issue 32, item 5): the account,
 * sessions, keys (never their secrets: the platform does not hold them readable), devices, subscriptions and
 * the audit entries about them,
 * as one JSON file. Read with the user's own token, so it can hold nothing of anyone else.
 */
async function exportAccount(api: AccountApi, caller: CallerContext): Promise<PageResponse> {
  const [account, sessions, apiKeys, devices, subscriptions, auditEntries] = await Promise.all([
    api.getAccount(caller),
    part(() => api.listSessions(caller)),
    part(() => api.listKeys(caller)),
    part(async () => (await api.listDevices(caller)).items),
    part(() => api.listSubscriptions(caller)),
    part(() => wholeAuditTrail(api, caller)),
  ]);
  const day = new Date().toISOString().slice(0, 10);
  return {
    status: 200,
    json: { exportedAt: new Date().toISOString(), account, sessions, apiKeys, devices, subscriptions, auditEntries },
    headers: { 'Content-Disposition': `attachment; filename="account-${account.id}-${day}.json"`, 'Cache-Control': 'no-store' },
  };
}

export function exportRoutes(api: AccountApi): RouteDefinition<PageHandler>[] {
  return [{ method: 'GET', pattern: '/account/export', handler: requireSignIn((req: PageRequest) => exportAccount(api, callerOf(req))) }];
}
