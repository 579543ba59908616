import { Router, handle, type AppContext, type AppState } from '@acs/http';
import { apiKeyUsageEndpoint, usageEndpoint, type ApiKeyOperationUsageResponseBody, type ApiKeyUsageResponseBody } from '@acs/contracts';
import type { KeysDeps } from '../domain/deps.js';
import { toCsv, wantsCsv } from '../domain/csv.js';
import { operationUsage, operationUsageRange } from '../domain/operation-usage.js';
import { userUsage } from '../domain/user-usage.js';
import { ownedKey, userKeyUsage } from '../domain/user-keys.js';

const STATUS_COLUMNS = ['2xx', '3xx', '4xx', '429', '5xx'] as const;

function answerCsv(ctx: AppContext, filename: string, header: string[], rows: (string | number)[][]): void {
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  ctx.body = toCsv(header, rows);
}

const dailyRows = (usage: ApiKeyUsageResponseBody) =>
  usage.days.map((day) => [day.date, day.requests, ...STATUS_COLUMNS.map((status) => day.byStatus[status])]);
const hourlyRows = (usage: ApiKeyOperationUsageResponseBody) =>
  usage.hours.map((row) => [row.hour, row.operationId, row.requests, ...STATUS_COLUMNS.map((status) => row.byStatus[status])]);

/** Usage read by the account dashboard: a key's (per day, or per operation and hour) and the user's against the quota. */
export function usageRoutes(deps: KeysDeps, retentionDays: number): Router<AppState> {
  const router = new Router<AppState>();
  handle(router, apiKeyUsageEndpoint, async (ctx, { caller, query, params }) => {
    const csv = wantsCsv(query.format, ctx.get('Accept') || undefined);
    if (query.by === 'day') {
      const usage = await userKeyUsage(deps, caller.userId, params.id!, query.days);
      if (csv) answerCsv(ctx, `key-${params.id}-daily.csv`, ['date', 'requests', ...STATUS_COLUMNS], dailyRows(usage));
      else ctx.body = usage;
      return;
    }
    const range = operationUsageRange(query.from, query.to, retentionDays);
    const key = await ownedKey(deps, caller.userId, params.id!);
    const usage = await operationUsage(deps, key.id, range);
    if (csv) answerCsv(ctx, `key-${key.id}-operations.csv`, ['hour', 'operationId', 'requests', ...STATUS_COLUMNS], hourlyRows(usage));
    else ctx.body = usage;
  });
  handle(router, usageEndpoint, async (ctx, { caller, query }) => {
    const usage = await userUsage(deps, caller.userId);
    ctx.set('Cache-Control', 'no-store');
    if (wantsCsv(query.format, ctx.get('Accept') || undefined))
      answerCsv(
        ctx,
        'usage.csv',
        ['id', 'name', 'requests'],
        usage.keys.map((key) => [key.id, key.name, key.requests]),
      );
    else ctx.body = usage;
  });
  return router;
}
