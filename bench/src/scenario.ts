import type { ServiceProcess } from './processes.js';
import type { LoadResult } from './load.js';

export interface Measured {
  result: LoadResult;
  /** CPU per request of the measured proxy process, in µs (user + system, from /proc). */
  cpuUs?: number;
}

export type Load = (
  origin: string,
  path: string,
  headers: () => Record<string, string>,
  seconds: number,
  request?: { method?: 'GET' | 'POST'; body?: string },
) => Promise<LoadResult>;

/** Runs one scenario and reads the CPU the `cpuOf` process spent on it. */
export async function measure(
  load: Load,
  target: ServiceProcess,
  path: string,
  headers: () => Record<string, string>,
  seconds: number,
  cpuOf?: ServiceProcess,
  request?: { method?: 'GET' | 'POST'; body?: string },
): Promise<Measured> {
  const before = cpuOf?.cpuSeconds();
  const result = await load(target.url, path, headers, seconds, request);
  if (!cpuOf || before === undefined) return { result };
  return { result, cpuUs: ((cpuOf.cpuSeconds() - before) * 1e6) / result.requests };
}

export function row(name: string, { result: r, cpuUs }: Measured, cpuLabel = 'CPU'): string {
  const cpu = cpuUs === undefined ? '' : `  ${cpuLabel} ${cpuUs.toFixed(1)} µs/req`;
  return `${name.padEnd(34)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50ms.toFixed(2)} ms  p99 ${r.p99ms.toFixed(2)} ms  (${r.requests} requests, ${r.errors} errors)${cpu}`;
}

/** The median of a list (the lower middle for an even count, as medianByCpu). */
export const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

/** A figure with its sign, one decimal: +3.0, -0.4. */
export const withSign = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(1)}`;

/** The run whose CPU per request is the median (lower middle for an even count), so the row stays one real run. */
export function medianByCpu(runs: readonly Measured[]): Measured {
  const sorted = [...runs].sort((a, b) => (a.cpuUs ?? 0) - (b.cpuUs ?? 0));
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}
