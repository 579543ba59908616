import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** A POST body goes through a tiny wrk Lua script (wrk's only way to send one). */
function postScript(body: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'acs-bench-')), 'post.lua');
  writeFileSync(file, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n`);
  return file;
}

export function runWrk(
  url: string,
  headers: Record<string, string>,
  connections: number,
  seconds: number,
  request: { method?: 'GET' | 'POST'; body?: string } = {},
): Promise<LoadResult> {
  const args = ['-t', '1', '-c', String(connections), '-d', `${seconds}s`, '--latency'];
  if (request.body !== undefined) args.push('-s', postScript(request.body));
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
