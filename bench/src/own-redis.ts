import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { unusedPort } from '@acs/testing';

/**
 * A redis-server of the bench's own on a spare port, so its CPU (INFO cpu) is the bench's alone: the shared
 * Redis on 6379 carries everybody else's traffic. Nothing is persisted.
 */
export interface OwnRedis {
  url: string;
  /** The server's process id: its CPU read from /proc (process-cpu.ts) without a command of its own. */
  pid: number;
  /** used_cpu_sys + used_cpu_user of the server so far, in seconds. */
  cpuSeconds(): number;
  /**
   * Microseconds Redis spent executing commands since the last call (INFO commandstats, then CONFIG RESETSTAT):
   * the commands' own time without the network I/O around them, steadier than cpuSeconds on a busy machine.
   */
  commandMicroseconds(): number;
  stop(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await unusedPort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const cli = (...args: string[]): string => execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });
  for (let attempt = 0; ; attempt++) {
    try {
      if (cli('ping').trim() === 'PONG') break;
    } catch {
      // not listening yet
    }
    if (attempt > 100) throw new Error('the bench Redis did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid!,
    cpuSeconds() {
      const info = cli('info', 'cpu');
      const field = (name: string): number => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
      return field('used_cpu_sys') + field('used_cpu_user');
    },
    commandMicroseconds() {
      const stats = cli('info', 'commandstats');
      cli('config', 'resetstat');
      let total = 0;
      for (const match of stats.matchAll(/^cmdstat_(\w+):calls=\d+,usec=(\d+)/gm))
        if (match[1] !== 'info' && match[1] !== 'config') total += Number(match[2]);
      return total;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
