import { badRequest } from '@acs/errors';
import type { ApiKeyOperationUsageResponseBody } from '@acs/contracts';
import { readOperationUsage } from '../data-access/usage-repository.js';
import type { KeysDeps } from './deps.js';

const DAY_MS = 86_400_000;
/** The default window of by=operation: the last week, hour by hour. */
const DEFAULT_DAYS = 7;

type Counts = { '2xx': number; '3xx': number; '4xx': number; '429': number; '5xx': number };
const total = (c: Counts): number => c['2xx'] + c['3xx'] + c['4xx'] + c['429'] + c['5xx'];

/** [from, to) as asked, checked: from before to, the range within what is kept (retentionDays). */
export function operationUsageRange(
  from: Date | undefined,
  to: Date | undefined,
  retentionDays: number,
  now = Date.now(),
): { from: Date; to: Date } {
  const end = to ?? new Date(now);
  const start = from ?? new Date(end.getTime() - DEFAULT_DAYS * DAY_MS);
  if (start >= end) throw badRequest('from must be before to', undefined, 'invalid_range');
  if (end.getTime() - start.getTime() > retentionDays * DAY_MS)
    throw badRequest(`The range may span at most ${retentionDays} days (what is kept)`, undefined, 'invalid_range');
  return { from: start, to: end };
}

/** A key's requests per operation and UTC hour in [from, to), with the totals per operation (most first). */
export async function operationUsage(
  deps: Pick<KeysDeps, 'db'>,
  keyId: string,
  range: { from: Date; to: Date },
): Promise<ApiKeyOperationUsageResponseBody> {
  const rows = await readOperationUsage(deps.db, keyId, range.from, range.to);
  const totals = new Map<string, Counts>();
  const hours: ApiKeyOperationUsageResponseBody['hours'] = [];
  for (const { hour, operationId, ...byStatus } of rows) {
    hours.push({ hour, operationId, requests: total(byStatus), byStatus });
    const sum = totals.get(operationId) ?? { '2xx': 0, '3xx': 0, '4xx': 0, '429': 0, '5xx': 0 };
    for (const status of Object.keys(sum) as (keyof Counts)[]) sum[status] += byStatus[status];
    totals.set(operationId, sum);
  }
  const operations = [...totals]
    .map(([operationId, byStatus]) => ({ operationId, requests: total(byStatus), byStatus }))
    .sort((a, b) => b.requests - a.requests || a.operationId.localeCompare(b.operationId));
  return { from: range.from.toISOString(), to: range.to.toISOString(), operations, hours };
}
