import { spawn, type ChildProcess } from 'node:child_process';
import { unusedPort } from '@acs/testing';
import { fileURLToPath } from 'node:url';
import { processCpuSeconds } from './process-cpu.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** CPU seconds the process (all its threads) has run so far (from /proc: process-cpu.ts). */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/**
 * Runs `node <entry>` (relative to the repository, or absolute) with env on a free port and waits
 * until its /healthz answers. Its log lines go to `log` when given (a file), else to this stdout.
 */
export async function startProcess(
  name: string,
  entry: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  log?: NodeJS.WritableStream,
): Promise<ServiceProcess> {
  const port = await unusedPort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...nodeArgs, entry.startsWith('/') ? entry : ROOT + entry], {
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', log ? 'pipe' : 'inherit', 'pipe'],
  });
  if (log) child.stdout!.on('data', (c: Buffer) => log.write(c));
  let output = '';
  child.stderr!.on('data', (c: Buffer) => {
    output += c.toString();
    log?.write(c);
  });
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  for (let attempt = 0; attempt < 600; attempt++) {
    if (exited !== undefined) throw new Error(`${name} exited with ${exited}:\n${output}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) {
      return {
        child,
        url,
        cpuSeconds: () => processCpuSeconds(child.pid!),
        stop: () => stopChild(child),
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${name} did not become healthy within 60 s:\n${output}`);
}

const STOP_GRACE_MS = 15_000;

/**
 * SIGTERM, then SIGKILL if it has not exited within STOP_GRACE_MS. Resolves at once for a child
 * that has already exited: waiting for an 'exit' that was already emitted would never end.
 */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((done) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(kill);
      done();
    });
    child.kill('SIGTERM');
  });
}
