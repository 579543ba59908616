import { execFile, execFileSync } from 'node:child_process';
import type { LoadResult } from './load.js';

/** wrk (Debian package `wrk`) drives load from C at a fraction of a Node generator's CPU. */
export function wrkAvailable(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk --version exits 1 after printing its version
    return (err as { status?: number }).status === 1;
  }
}

function toMs(value: string, unit: string): number {
  const n = Number(value);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : n;
}

export function runWrk(url: string, headers: Record<string, string>, connections: number, seconds: number): Promise<LoadResult> {
  const args = ['-t', '1', '-c', String(connections), '-d', `${seconds}s`, '--latency'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile('wrk', args, (err, stdout) => {
      if (err) return reject(err);
      const requests = Number(/(\d+) requests in/.exec(stdout)?.[1]);
      const elapsed = Number(/requests in ([\d.]+)s/.exec(stdout)?.[1]);
      const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
      const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
      const p = (q: string): number => {
        const m = new RegExp(`\\s${q}%\\s+([\\d.]+)(us|ms|s)`).exec(stdout);
        return m ? toMs(m[1]!, m[2]!) : NaN;
      };
      const errors = non2xx + (socketErrors ? socketErrors.slice(1).reduce((a, b) => a + Number(b), 0) : 0);
      resolve({ requests, errors, seconds: elapsed, rps: requests / elapsed, p50ms: p('50'), p99ms: p('99') });
    });
  });
}
