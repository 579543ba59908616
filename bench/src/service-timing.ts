/**
 * How long requests took inside the service, from its own histogram
 * (http_server_request_duration_seconds, libs/metrics: buckets 1, 2.5, 5, 10 ms, ...): the share of
 * GET /api/Dac answers with `status` at or under each bound, between two scrapes. Client-side
 * figures on a shared 2-vCPU machine include the client's and the kernel's scheduling; this does not.
 */
export type BucketCounts = Record<string, number>;

export async function scrapeDacBuckets(serviceUrl: string, status = '200'): Promise<BucketCounts> {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text();
  const counts: BucketCounts = {};
  for (const match of text.matchAll(/^http_server_request_duration_seconds_bucket\{([^}]*)\} (\d+)/gm)) {
    const labels = match[1]!;
    if (!labels.includes('route="/api/Dac"') || !labels.includes(`status="${status}"`)) continue;
    const bound = /le="([^"]+)"/.exec(labels)?.[1];
    if (bound) counts[bound] = (counts[bound] ?? 0) + Number(match[2]);
  }
  return counts;
}

/** "at the service: ≤1 ms 71.8%, ≤2.5 ms 94.5%, ≤5 ms 98.3%, ≤10 ms 99.9%". */
export function serviceShares(before: BucketCounts, after: BucketCounts): string {
  const total = (after['+Inf'] ?? 0) - (before['+Inf'] ?? 0);
  if (total === 0) return 'at the service: no requests counted';
  const share = (bound: string): string => `${((((after[bound] ?? 0) - (before[bound] ?? 0)) / total) * 100).toFixed(1)}%`;
  return `at the service: ≤1 ms ${share('0.001')}, ≤2.5 ms ${share('0.0025')}, ≤5 ms ${share('0.005')}, ≤10 ms ${share('0.01')}`;
}
