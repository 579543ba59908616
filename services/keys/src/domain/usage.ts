import type { ApiKeyUsageResponseBody } from '@acs/contracts';
import { readDailyUsage } from '../data-access/usage-repository.js';
import type { KeysDeps } from './deps.js';

const DAY_MS = 86_400_000;
const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** `days` UTC days ending today, oldest first; a day without a row is there with zeros (a chart needs every day). */
export async function dailyUsage(
  deps: Pick<KeysDeps, 'db'>,
  keyId: string,
  days: number,
  now = Date.now(),
): Promise<ApiKeyUsageResponseBody> {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const since = utcDate(today - (days - 1) * DAY_MS);
  const rows = new Map((await readDailyUsage(deps.db, keyId, since)).map((row) => [row.date, row]));
  const result: ApiKeyUsageResponseBody = { days: [] };
  for (let i = days - 1; i >= 0; i--) {
    const date = utcDate(today - i * DAY_MS);
    const row = rows.get(date);
    const byStatus = {
      '2xx': row?.['2xx'] ?? 0,
      '3xx': row?.['3xx'] ?? 0,
      '4xx': row?.['4xx'] ?? 0,
      '429': row?.['429'] ?? 0,
      '5xx': row?.['5xx'] ?? 0,
    };
    result.days.push({ date, requests: byStatus['2xx'] + byStatus['3xx'] + byStatus['4xx'] + byStatus['429'] + byStatus['5xx'], byStatus });
  }
  return result;
}
