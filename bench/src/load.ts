import { Pool } from 'undici';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50ms: number;
  p99ms: number;
}

/**
 * Closed-loop load: `connections` workers each send the next request when the previous answered,
 * for `seconds`. Bounded in time and count; loopback only.
 */
export async function runLoad(
  origin: string,
  path: string,
  headers: () => Record<string, string>,
  connections: number,
  seconds: number,
  request: { method?: 'GET' | 'POST'; body?: string } = {},
): Promise<LoadResult> {
  const pool = new Pool(origin, { connections, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline && latencies.length < 5_000_000) {
      const t0 = performance.now();
      const res = await pool.request({
        path,
        method: request.method ?? 'GET',
        headers: request.body ? { ...headers(), 'content-type': 'application/json' } : headers(),
        body: request.body ?? null,
      });
      await res.body.dump();
      latencies.push(performance.now() - t0);
      if (res.statusCode !== 200) errors++;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { requests: latencies.length, errors, seconds: elapsed, rps: latencies.length / elapsed, p50ms: at(0.5), p99ms: at(0.99) };
}
