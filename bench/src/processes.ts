import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { unusedPort } from '@acs/testing';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLOCK_TICKS_PER_SECOND = 100; // Linux USER_HZ

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** User + system CPU seconds the process has used so far (from /proc). */
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
        cpuSeconds: () => {
          const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
          return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
        },
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
